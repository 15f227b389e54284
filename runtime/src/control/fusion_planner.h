// SPDX-License-Identifier: Apache-2.0
#pragma once
// Fusion planning: many small allreduces cost one latency each; packed into one buffer they
// cost one latency together. plan_fusion() packs the ready single-tensor responses of a cycle
// into fused ones (Horovod's FuseResponses):
//  - only allreduces that agree on dtype, op, device and scale factors are packed together;
//  - a fused response holds at most `threshold_bytes` of data, except that a tensor larger than
//    the threshold runs alone, and a group (grouped allreduce) is never split;
//  - the order is deterministic (every rank computes the same plan from the same list): each
//    fused response starts at the first tensor not yet placed and takes the later compatible
//    ones that still fit, in order.

#include <cstddef>
#include <vector>

#include "control/message.h"

namespace hvd::control {

/// Plans every cycle with the same memory: a step of many small tensors is dominated by
/// per-tensor costs, and a fresh plan per cycle cost a copy of each cached response plus the
/// allocations of its name and count vectors.
class FusionPlanner {
 public:
  /// Replaces `plan` by the plan of `ready` (read, not copied: they are usually the cache's
  /// own responses). The responses already in `plan` are overwritten in place, so their
  /// vectors and name strings keep their memory from one cycle to the next.
  void plan(const std::vector<const Response*>& ready, size_t threshold_bytes,
            std::vector<Response>& plan);

 private:
  // Fills unit_heads_, next_member_ and unit_bytes_ for `ready`.
  void find_units(const std::vector<const Response*>& ready);
  static constexpr size_t kNone = static_cast<size_t>(-1);
  // A unit is what moves as one: a single response, or the members of a group, chained from
  // the first (which holds the unit's place in the order) through next_member_.
  std::vector<size_t> unit_heads_;   // index in `ready` of each unit's first member
  std::vector<size_t> next_member_;  // per index in `ready`: its group's next member, or kNone
  std::vector<size_t> unit_bytes_;
  std::vector<char> placed_;
};

/// One-shot form of FusionPlanner::plan().
std::vector<Response> plan_fusion(const std::vector<Response>& ready, size_t threshold_bytes);

/// Bytes of data a response moves (sum of its tensors).
size_t response_bytes(const Response& response);

}  // namespace hvd::control
