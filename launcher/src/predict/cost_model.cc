// SPDX-License-Identifier: Apache-2.0
#include "predict/cost_model.h"

#include <algorithm>
#include <cmath>

#include "hvd/error.h"

namespace hvd::launcher::predict {
namespace {

double transfer_us(double bytes, const Link& link) {
  return link.latency_us + bytes / (link.bandwidth_gbps * 1e3);  // GB/s = 1e3 bytes/us
}

int largest_power_of_two(int n) {
  int p = 1;
  while (p * 2 <= n) p *= 2;
  return p;
}

}  // namespace

std::string allreduce_algorithm(double bytes, int ranks, double small_bytes) {
  if (ranks <= 1) return "none";
  return bytes <= small_bytes ? "recursive doubling" : "ring";
}

double allreduce_us(double bytes, int ranks, const Link& link, double small_bytes) {
  if (ranks <= 1 || bytes <= 0) return 0;
  if (bytes <= small_bytes) {
    // log2(p) exchanges of the whole message; ranks beyond the power of two p hand their data
    // to a partner first and get the result back last (collectives.cc: allreduce_doubling).
    const int p = largest_power_of_two(ranks);
    const double steps = std::log2(p) + (ranks > p ? 2 : 0);
    return steps * transfer_us(bytes, link);
  }
  // Reduce-scatter then allgather: 2(p-1) steps, each moving one block of bytes/p.
  const double block = bytes / ranks;
  return 2.0 * (ranks - 1) * transfer_us(block, link);
}

double cluster_allreduce_us(double bytes, int nodes, const Cluster& c, const Schedule& s) {
  const int local = std::max(1, c.ranks_per_node);
  if (nodes <= 1) return allreduce_us(bytes, local, c.intra, s.small_bytes);
  if (!s.hierarchical || local == 1) {
    return allreduce_us(bytes, nodes * local, c.inter, s.small_bytes);
  }
  // Within the node: reduce-scatter, then each local rank allreduces its 1/L share across the
  // nodes, then allgather within the node.
  const double local_phase = (local - 1) * transfer_us(bytes / local, c.intra);
  return 2 * local_phase + allreduce_us(bytes / local, nodes, c.inter, s.small_bytes);
}

std::vector<Prediction> predict(const Workload& w, const Cluster& c, const Schedule& s,
                                const std::vector<int>& node_counts) {
  HVD_CHECK(std::isfinite(w.compute_ms) && w.compute_ms > 0 && w.tensors > 0 &&
                std::isfinite(w.gradient_bytes) && w.gradient_bytes >= 0 && s.cycle_ms > 0 &&
                s.fusion_bytes > 0,
            "predict: workload or schedule out of range");
  const double backward_ms = w.compute_ms * w.backward_fraction;
  // Counts are worked out in double and bounded by the tensors before they become ints.
  const auto bounded = [&w](double count) {
    return static_cast<int>(std::max(1.0, std::min(static_cast<double>(w.tensors), std::ceil(count))));
  };
  const int by_threshold = bounded(w.gradient_bytes / s.fusion_bytes);

  std::vector<Prediction> out;
  for (const int nodes : node_counts) {
    Prediction p;
    p.nodes = nodes;
    p.ranks = nodes * std::max(1, c.ranks_per_node);
    // Fused allreduces per step. libhvd's loop runs one cycle, then the allreduce it fused, then
    // the next cycle: a new fusion starts every max(cycle, one allreduce), and takes what the
    // backward pass made ready meanwhile. Solved by iteration (it converges in a few steps);
    // bounded below by the fusion threshold and above by the tensors.
    int allreduces = std::max(by_threshold, bounded(backward_ms / s.cycle_ms));
    for (int i = 0; i < 50; ++i) {
      const double period = std::max(
          s.cycle_ms, cluster_allreduce_us(w.gradient_bytes / allreduces, nodes, c, s) / 1e3);
      const int next = std::max(by_threshold, bounded(backward_ms / period));
      if (next == allreduces) break;
      allreduces = (allreduces + next + 1) / 2;  // halfway: no oscillation between two counts
    }
    const double fused_bytes = w.gradient_bytes / allreduces;
    p.allreduces = p.ranks > 1 ? allreduces : 0;
    const double one_ms = cluster_allreduce_us(fused_bytes, nodes, c, s) / 1e3;
    p.comm_ms = p.allreduces * one_ms;
    if (p.ranks > 1) {
      // The first fused allreduce can start once its share of the backward pass is done; the
      // last one starts only when the backward pass ends, so it is never hidden.
      const double hidden = backward_ms * (allreduces - 1) / allreduces;
      p.exposed_ms = std::max(one_ms, p.comm_ms - hidden) + s.cycle_ms / 2;
    }
    const int threads = std::max(1, c.ranks_per_node) * std::max(1, w.threads_per_rank);
    const double oversubscribed =
        c.cores_per_node > 0 ? std::max(1.0, static_cast<double>(threads) / c.cores_per_node) : 1.0;
    p.compute_ms = w.compute_ms * oversubscribed;
    p.step_ms = p.compute_ms + p.exposed_ms;
    p.samples_per_sec = p.ranks * w.batch_per_rank / (p.step_ms / 1e3);
    p.efficiency = w.compute_ms / p.step_ms;
    p.algorithm = s.hierarchical && nodes > 1 && c.ranks_per_node > 1
                      ? "hierarchical"
                      : allreduce_algorithm(fused_bytes, p.ranks, s.small_bytes);
    out.push_back(p);
  }
  return out;
}

std::vector<std::string> assumptions() {
  return {
      "weak scaling: each rank keeps its batch; compute per step is the 1-rank measurement, "
      "slowed down only where a node's ranks need more cores than it has",
      "every gradient byte is allreduced once per step; nothing else is communicated",
      "across nodes a flat ring or recursive doubling runs at the inter-node link's speed; "
      "hierarchical reduces within a node, allreduces 1/L across nodes, gathers within",
      "gradients become ready evenly over the backward pass; a fusion takes what became ready "
      "during max(cycle time, the previous allreduce), since libhvd runs one after the other",
      "communication overlaps the backward pass; the last fused allreduce and half a cycle of "
      "negotiation are always exposed",
  };
}

}  // namespace hvd::launcher::predict
