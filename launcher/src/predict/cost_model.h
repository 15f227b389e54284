// SPDX-License-Identifier: Apache-2.0
#pragma once
// `hvdrun predict`'s cost model: the time of one data-parallel training step at N ranks, from
// the algorithms libhvd runs (backends/ring/collectives.h) and the way it schedules them
// (fusion per cycle, overlap with the backward pass). Latency-bandwidth (alpha-beta) costs:
// a message of n bytes over a link takes alpha + n / beta.
//
// Assumptions, printed with every prediction (assumptions()):
//  - weak scaling: every rank keeps its batch, so the compute of a step does not change with N,
//    unless a node's ranks need more cores than it has (then it grows by that factor);
//  - allreduce is what communication costs: every gradient byte is reduced once per step;
//  - a flat ring or recursive doubling across nodes runs at the speed of the links between
//    nodes (each step is synchronous, so the slowest hop sets its pace); hierarchical allreduce
//    reduces within a node, then across nodes on 1/L of the bytes, then gathers within the node;
//  - gradients become ready evenly over the backward pass; libhvd runs a cycle, then the
//    allreduce it fused, then the next cycle, so each fusion takes what became ready during
//    max(cycle time, the previous allreduce): at least as many fusions as the threshold needs,
//    at most one per tensor;
//  - communication overlaps the backward pass; what is left after it, and at least the last
//    fused allreduce, is exposed; a rank waits on average half a cycle for the negotiation.

#include <cstddef>
#include <string>
#include <vector>

namespace hvd::launcher::predict {

/// One hop: alpha (latency, microseconds) and beta (bandwidth, GB/s = 1e9 bytes/s).
struct Link {
  double latency_us = 0;
  double bandwidth_gbps = 0;  // GB/s
};

struct Cluster {
  int ranks_per_node = 1;
  // Cores of a node: ranks that need more threads than it has share them, and their compute
  // slows down by that factor (0: unknown, never oversubscribed).
  int cores_per_node = 0;
  Link intra;  // between ranks of one node (shared memory, NVLink)
  Link inter;  // between nodes (the network)
};

/// What one step of the training costs at 1 rank.
struct Workload {
  double compute_ms = 0;            // forward + backward + optimizer, one rank, one step
  double backward_fraction = 2.0 / 3.0;  // of compute_ms: the part communication can overlap
  double gradient_bytes = 0;        // all gradients of one step
  int tensors = 1;                  // how many gradient tensors
  int batch_per_rank = 1;           // samples per rank and step
  int threads_per_rank = 1;         // cores one rank's compute keeps busy
};

/// libhvd's settings that change the schedule.
struct Schedule {
  double fusion_bytes = 128.0 * 1024 * 1024;  // HOROVOD_FUSION_THRESHOLD
  double cycle_ms = 1;                        // HOROVOD_CYCLE_TIME
  bool hierarchical = false;                  // HOROVOD_HIERARCHICAL_ALLREDUCE
  double small_bytes = 64 * 1024;             // up to this, recursive doubling (collectives.h)
};

/// Microseconds of one allreduce of `bytes` over `ranks` ranks, all on links like `link`:
/// recursive doubling up to small_bytes, else ring reduce-scatter + allgather.
double allreduce_us(double bytes, int ranks, const Link& link, double small_bytes);

/// The algorithm allreduce_us() picks, in words ("ring", "recursive doubling", "none").
std::string allreduce_algorithm(double bytes, int ranks, double small_bytes);

/// Microseconds of one allreduce over `nodes` x ranks_per_node ranks.
double cluster_allreduce_us(double bytes, int nodes, const Cluster& cluster,
                            const Schedule& schedule);

struct Prediction {
  int nodes = 0;
  int ranks = 0;
  double compute_ms = 0;     // one step's compute on each rank
  int allreduces = 0;        // fused allreduces per step
  double comm_ms = 0;        // all of them, back to back
  double exposed_ms = 0;     // what the backward pass does not hide
  double step_ms = 0;
  double samples_per_sec = 0;
  double efficiency = 0;     // step at one rank / step here (weak scaling)
  std::string algorithm;     // of one fused allreduce
};

/// One prediction per node count in `node_counts`.
std::vector<Prediction> predict(const Workload& workload, const Cluster& cluster,
                                const Schedule& schedule, const std::vector<int>& node_counts);

/// The assumptions above, one line each, for the printed table.
std::vector<std::string> assumptions();

}  // namespace hvd::launcher::predict
