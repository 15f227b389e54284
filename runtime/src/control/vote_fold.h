// SPDX-License-Identifier: Apache-2.0
#pragma once
// Folding: a small cached allreduce rides on the cache vote (cache_vote.h), so that a cycle
// that runs only that tensor needs one collective instead of two (the vote, then the data).
//
// A rank folds when the only request it has pending is a cache hit whose cached response
// can_fold(): it writes its (prescaled) data into the vote, which reduces that part with the
// response's dtype and op while AND-ing the bits. If every rank folded the same tensor, the
// reduced data is the result, and the tensor completes without a second collective; otherwise
// the data is dropped and the tensor runs as it would have. Since the caches are the same on
// every rank, so are the folded tensor's dtype, op and size: the reduction is exact.

#include <cstddef>
#include <functional>

#include "control/message.h"

namespace hvd::control {

/// The most bytes of a tensor that ride on the vote (and the size of the vote's data part).
inline constexpr size_t kFoldBytes = 128;

/// Whether a cached response's tensor may ride on the vote: one ungrouped allreduce of at most
/// kFoldBytes, not Adasum (the vote only reduces element-wise). Reads only the response, which
/// is the same on every rank.
bool can_fold(const Response& r);

/// The bytes of can_fold(r)'s tensor. Only for responses can_fold() accepted.
size_t fold_bytes(const Response& r);

/// The runtime's side of a fold: writes this rank's contribution to the tensor of `mine`
/// (fold_bytes(r) bytes, prescaled as the executor would) to `dst` and returns true, or
/// returns false when this rank's tensor cannot fold (not in host memory, say).
using FoldInput = std::function<bool(const Response& r, const Request& mine, void* dst)>;

}  // namespace hvd::control
