// SPDX-License-Identifier: Apache-2.0
#pragma once
// The GPUs this rank can see. Two implementations, chosen by CMake (no #if): gpu_probe_cuda.cc
// asks the CUDA runtime, gpu_probe_none.cc counts CUDA_VISIBLE_DEVICES and says "no CUDA".

#include <string>

namespace hvd::preflight {

struct GpuProbe {
  int count = 0;
  std::string model;  // the first device's name, "no CUDA" in a build without it, "" for none
  /// Which GPU the first device is, the same whichever rank sees it (so that two ranks bound to
  /// one GPU can be told): its PCI bus id with CUDA; without CUDA, the first entry of
  /// CUDA_VISIBLE_DEVICES (what the launcher bound). "" for none.
  std::string id;
};

/// Never throws: a failing CUDA call reads as no GPUs, with its error as the model.
GpuProbe probe_gpus();

}  // namespace hvd::preflight
