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

/// Takes `ready` by value: the plan is made of its responses, moved rather than copied (a
/// step of many small tensors is dominated by per-tensor costs such as these).
std::vector<Response> plan_fusion(std::vector<Response> ready, size_t threshold_bytes);

/// Bytes of data a response moves (sum of its tensors).
size_t response_bytes(const Response& response);

}  // namespace hvd::control
