// SPDX-License-Identifier: Apache-2.0
#pragma once
// Which ranks share a node, and which sets of ranks preflight measures so that a slow node or
// link can be named: each node's own ranks (shared memory), and node leaders in pairs along a
// ring of nodes (so every node is in two links once there are three or more; a node whose
// links are all slow is the slow one).

#include <string>
#include <vector>

namespace hvd::preflight {

struct Node {
  std::string host;
  std::vector<int> ranks;  // ascending; ranks[0] is the node's leader
};

/// A set of ranks to time: a node's ranks (b == -1) or the leaders of nodes a and b.
struct MeasuredSet {
  int a = 0;
  int b = -1;
  std::vector<int> ranks;
};

/// Nodes in the order of their first rank, from each rank's host name (index = rank).
std::vector<Node> group_by_host(const std::vector<std::string>& hosts);

/// The node pairs to time: none for one node, one for two, a ring of N for N >= 3.
std::vector<MeasuredSet> link_sets(const std::vector<Node>& nodes);

/// Each node that has more than one rank, with all its ranks.
std::vector<MeasuredSet> node_sets(const std::vector<Node>& nodes);

}  // namespace hvd::preflight
