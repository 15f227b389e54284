// SPDX-License-Identifier: Apache-2.0
#pragma once
// The verdict of `hvdrun preflight` on hvd-preflight's report: each node's and link's figures
// against the median of their kind, and the checks that need no median (NICs, GPUs, clock).
// Pure: JSON in, verdict out, so the rules are unit-tested without running anything.
//
// Rules (a figure is flagged when it is worse than `threshold` x the median of its kind):
//  - node memory bandwidth, node shared-memory allreduce bandwidth, link allreduce bandwidth:
//    below threshold x median;
//  - link latency: above median / threshold;
//  - a node is flagged when a NIC the profile names is missing on it, when the profile says it
//    has GPUs and none is visible, when the NVIDIA driver lists another number of GPUs on it
//    than the profile's node.gpus (one fell off the bus; not judged without the driver), when its GPU is not the profile's model (the profile's
//    gpu_model is not part of the name CUDA gives, case aside), when two of its ranks are bound to
//    one GPU (the same PCI bus id; without CUDA, the same CUDA_VISIBLE_DEVICES entry), when its clock is off by more than kClockSkewLimitMs beyond
//    what the measurement can tell, or when it has two or more links and all are flagged (with a
//    ring of nodes, each node is in two links: the slow node is the one both of whose links are
//    slow). A single slow link between two nodes names the link, not a node.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace hvd::launcher::preflight {

inline constexpr double kDefaultThreshold = 0.7;
/// Nodes whose clocks differ by more than this make cross-node timelines and logs misleading;
/// NTP or chrony keep nodes within a few ms.
inline constexpr double kClockSkewLimitMs = 50;

struct NodeVerdict {
  std::string host;
  std::vector<int> rank_ids;       // the node's ranks
  int gpus = 0;
  std::string gpu_model;
  std::vector<std::string> gpu_ids;  // per rank, as rank_ids; "" where it sees no GPU
  int node_gpus = -1;              // the node's, from the NVIDIA driver; -1: unknown
  std::vector<std::string> missing_nics;
  double clock_offset_ms = 0;
  double clock_rtt_ms = 0;
  double memory_gbps = 0;
  double intra_busbw_gbps = -1;   // -1: one rank on the node, nothing to time
  double intra_latency_us = -1;
  std::vector<std::string> reasons;  // empty: not flagged
};

struct LinkVerdict {
  std::string a, b;
  double latency_us = 0;
  double busbw_gbps = 0;
  std::vector<std::string> reasons;
};

struct Medians {
  double memory_gbps = 0;
  double intra_busbw_gbps = 0;  // 0: no node has two ranks
  double link_busbw_gbps = 0;   // 0: no links
  double link_latency_us = 0;
};

struct Verdict {
  double threshold = kDefaultThreshold;
  std::vector<NodeVerdict> nodes;
  std::vector<LinkVerdict> links;
  Medians medians;
  double all_latency_us = 0;
  double all_busbw_gbps = 0;
  double seconds = 0;
  std::vector<std::string> flagged_hosts;  // nodes only, in report order
  bool anything_flagged() const;
};

/// The median of `values` (the mean of the middle two for an even count); 0 for none.
double median(std::vector<double> values);

/// What the site profile says a node has; zero and empty are not checked.
struct NodeExpectation {
  int gpus = 0;
  std::string gpu_model;  // e.g. "A100", matched against CUDA's device name
};

/// Judges a report ("tool": "hvd-preflight") against the profile's `expected` node. Throws ConfigError naming what is missing when the JSON is not such a
/// report, and UsageError for a threshold outside (0, 1].
Verdict judge(const nlohmann::json& report, double threshold, const NodeExpectation& expected);

/// The verdict as JSON (what --json writes): the report's figures with reasons and medians.
nlohmann::json to_json(const Verdict& verdict);

}  // namespace hvd::launcher::preflight
