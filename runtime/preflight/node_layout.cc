// SPDX-License-Identifier: Apache-2.0
#include "preflight/node_layout.h"

#include <algorithm>
#include <map>

namespace hvd::preflight {

std::vector<Node> group_by_host(const std::vector<std::string>& hosts) {
  std::vector<Node> nodes;
  std::map<std::string, size_t> index;
  for (size_t r = 0; r < hosts.size(); ++r) {
    const auto [it, added] = index.emplace(hosts[r], nodes.size());
    if (added) nodes.push_back({hosts[r], {}});
    nodes[it->second].ranks.push_back(static_cast<int>(r));
  }
  return nodes;
}

std::vector<MeasuredSet> link_sets(const std::vector<Node>& nodes) {
  std::vector<MeasuredSet> sets;
  const int n = static_cast<int>(nodes.size());
  if (n < 2) return sets;
  const int links = n == 2 ? 1 : n;  // two nodes have one link, not the same one twice
  for (int a = 0; a < links; ++a) {
    const int b = (a + 1) % n;
    std::vector<int> ranks = {nodes[a].ranks.front(), nodes[b].ranks.front()};
    std::sort(ranks.begin(), ranks.end());
    sets.push_back({a, b, ranks});
  }
  return sets;
}

std::vector<MeasuredSet> node_sets(const std::vector<Node>& nodes) {
  std::vector<MeasuredSet> sets;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i].ranks.size() > 1) sets.push_back({static_cast<int>(i), -1, nodes[i].ranks});
  }
  return sets;
}

}  // namespace hvd::preflight
