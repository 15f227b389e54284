// SPDX-License-Identifier: Apache-2.0
#pragma once
// Lane: a backend and the memory operations for the memory its tensors live in. Host tensors
// take the host lane (a ring or MPI backend with HostMemory); CUDA tensors the GPU lane (NCCL
// with CUDA kernels, both on one stream).

#include <memory>

#include "backends/backend.h"
#include "backends/memory_ops.h"

namespace hvd::backends {

struct Lane {
  std::unique_ptr<Backend> backend;
  std::unique_ptr<MemoryOps> memory;
};

}  // namespace hvd::backends
