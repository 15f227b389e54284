// SPDX-License-Identifier: Apache-2.0
#include "core/lane_selector.h"

#include "hvd/error.h"

namespace hvd::core {

LaneSelector::LaneSelector(backends::Lane host, GpuLaneFactory gpu)
    : host_(std::move(host)), gpu_factory_(std::move(gpu)) {
  HVD_CHECK(host_.backend && host_.memory, "a host lane without a backend or memory");
}

backends::Lane& LaneSelector::gpu_lane(Device device) {
  if (!gpu_factory_) {
    throw ConfigError(str_cat(
        "a tensor on CUDA device ", device.index,
        " cannot be reduced: this libhvd was built without NCCL; rebuild with -DHVD_WITH_NCCL=ON "
        "-DHVD_WITH_CUDA=ON (needs CUDA and NCCL, e.g. at /usr/local/cuda), or pass host "
        "tensors; `hvdrun --check-build` lists what this build has"));
  }
  if (gpu_failure_) std::rethrow_exception(gpu_failure_);
  if (!gpu_device_) {
    gpu_device_ = device.index;
    try {
      gpu_lane_ = gpu_factory_(device);
      HVD_CHECK(gpu_lane_.backend && gpu_lane_.memory, "a GPU lane without a backend or memory");
    } catch (...) {
      gpu_failure_ = std::current_exception();
      throw;
    }
  }
  if (*gpu_device_ != device.index) {
    throw ConfigError(str_cat("a tensor on CUDA device ", device.index,
                              ", but this rank's NCCL communicator is on CUDA device ",
                              *gpu_device_,
                              ": libhvd drives one GPU per rank; keep every tensor of a rank "
                              "on one device (hvdrun gives each rank its GPU as device 0)"));
  }
  return gpu_lane_;
}

backends::Lane& LaneSelector::select(Device device, DataType dtype, ReduceOp op) {
  backends::Lane& lane = device.is_cpu() ? host_ : gpu_lane(device);
  if (!lane.backend->supports(device, dtype, op)) {
    throw ConfigError(str_cat("backend ", lane.backend->name(), " cannot ", op_name(op), " ",
                              dtype_name(dtype), " tensors on ",
                              device.is_cpu() ? "the host" : "a CUDA device"));
  }
  return lane;
}

}  // namespace hvd::core
