// SPDX-License-Identifier: Apache-2.0
#pragma once
// The GPU lane: the NCCL backend and CudaMemory on one stream of the rank's CUDA device.
// Only registry.cc includes this, in a build with the GPU backend.

#include <chrono>

#include "backends/lane.h"
#include "backends/rank0_broadcast.h"
#include "bootstrap/world_info.h"

namespace hvd::backends::nccl {

/// Collective: every rank calls it (from the background loop, for the same response). Makes
/// `device` current on the calling thread, creates the stream and the communicator. Throws
/// BackendError (no such device, NCCL failed), BootstrapError/TimeoutError (id exchange over
/// `broadcast`, a rank that did not join within `timeout`).
Lane make_nccl_lane(const Rank0Broadcast& broadcast, const bootstrap::WorldInfo& world,
                    Device device, std::chrono::milliseconds timeout);

}  // namespace hvd::backends::nccl
