// SPDX-License-Identifier: Apache-2.0
#include "backends/nccl/nccl_lane.h"

#include <memory>

#include "backends/cuda/cuda_memory.h"
#include "backends/cuda/cuda_stream.h"
#include "backends/nccl/nccl_backend.h"
#include "backends/nccl/nccl_comm.h"

namespace hvd::backends::nccl {

Lane make_nccl_lane(const Rank0Broadcast& broadcast, const bootstrap::WorldInfo& world,
                    Device device, std::chrono::milliseconds timeout) {
  auto stream = std::make_shared<cuda::CudaStream>(device.index);  // makes the device current
  auto comm = std::make_unique<NcclComm>(broadcast, world, timeout);
  Lane lane;
  lane.backend =
      std::make_unique<NcclBackend>(stream, std::move(comm), world.rank, world.size, timeout);
  lane.memory = std::make_unique<cuda::CudaMemory>(stream, timeout);
  return lane;
}

}  // namespace hvd::backends::nccl
