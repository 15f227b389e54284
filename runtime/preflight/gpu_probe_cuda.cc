// SPDX-License-Identifier: Apache-2.0
// With CUDA: the devices the runtime gives this rank, and the first one's name.
#include "preflight/gpu_probe.h"

#include <cuda_runtime.h>

namespace hvd::preflight {

GpuProbe probe_gpus() {
  GpuProbe probe;
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    probe.model = cudaGetErrorString(err);
    return probe;
  }
  probe.count = count;
  cudaDeviceProp prop{};
  if (count > 0 && cudaGetDeviceProperties(&prop, 0) == cudaSuccess) probe.model = prop.name;
  char bus_id[32] = {};
  if (count > 0 && cudaDeviceGetPCIBusId(bus_id, sizeof(bus_id), 0) == cudaSuccess) probe.id = bus_id;
  return probe;
}

}  // namespace hvd::preflight
