// SPDX-License-Identifier: Apache-2.0
#pragma once
// Rank0Broadcast: how a backend that is set up late (the GPU lane, on the first CUDA tensor)
// shares a value from rank 0 with every rank, once the bootstrap's store is gone: the runtime
// hands it the control channel's broadcast.

#include <functional>
#include <string>

namespace hvd::backends {

/// Collective: every rank calls it at the same point; returns rank 0's `bytes` on every rank
/// (`bytes` is ignored elsewhere). Throws what the channel throws.
using Rank0Broadcast = std::function<std::string(const std::string& bytes)>;

}  // namespace hvd::backends
