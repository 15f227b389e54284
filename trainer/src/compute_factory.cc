// SPDX-License-Identifier: Apache-2.0
// Picks the GPU Compute when this build has CUDA: the trainer's only #if on a build feature, so
// that a build without CUDA compiles none of the CUDA sources.
#include <memory>

#include "compute.h"
#include "hvd/build_config.h"
#include "hvd/error.h"

namespace hvd::train {

#if HVD_HAVE_CUDA
std::unique_ptr<Compute> make_cuda_compute(int device);  // cuda_compute.cc
int cuda_device_count();

bool gpu_available() { return cuda_device_count() > 0; }

std::unique_ptr<Compute> make_gpu_compute(int local_rank) {
  const int count = cuda_device_count();
  if (count == 0) {
    throw ConfigError("hvd-train: --device gpu, but no CUDA device is visible; use --device cpu");
  }
  // Under hvdrun each local rank sees only its own GPU (device 0); where a launcher leaves all
  // of a node's GPUs visible, local ranks take them round-robin, as hvdrun would.
  return make_cuda_compute(local_rank % count);
}
#else
bool gpu_available() { return false; }

std::unique_ptr<Compute> make_gpu_compute(int) {
  throw ConfigError(
      "hvd-train: --device gpu, but this build has no CUDA; reconfigure with -DHVD_WITH_CUDA=ON");
}
#endif

}  // namespace hvd::train
