// SPDX-License-Identifier: Apache-2.0
// Backend choice by device and dtype: host tensors take the host lane, CUDA tensors the GPU
// lane (made lazily, once), and a build without the GPU backend refuses CUDA tensors with a
// message that says how to rebuild.

#include "core/lane_selector.h"

#include <doctest/doctest.h>

#include <stdexcept>
#include <string>

#include "backends/host_memory.h"
#include "hvd/error.h"

namespace backends = hvd::backends;
using hvd::DataType;
using hvd::Device;
using hvd::ReduceOp;
using hvd::core::LaneSelector;

namespace {

// A backend that only answers supports(): selection never communicates.
class NamedBackend : public backends::Backend {
 public:
  NamedBackend(std::string name, bool cuda) : name_(std::move(name)), cuda_(cuda) {}
  std::string_view name() const override { return name_; }
  bool supports(Device device, DataType dtype, ReduceOp op) const override {
    return device.is_cpu() != cuda_ && op != ReduceOp::kAverage &&
           !(cuda_ && dtype == DataType::kUInt8 && op == ReduceOp::kProduct);
  }
  void allreduce(hvd::BufferView, ReduceOp) override {}
  void broadcast(hvd::BufferView, int) override {}
  void allgatherv(hvd::BufferView, hvd::BufferView, const std::vector<size_t>&) override {}
  void reducescatter(hvd::BufferView, hvd::BufferView, const std::vector<size_t>&,
                     ReduceOp) override {}
  void alltoall(hvd::BufferView, const std::vector<size_t>&, hvd::BufferView,
                const std::vector<size_t>&) override {}
  void barrier() override {}

 private:
  std::string name_;
  bool cuda_;
};

backends::Lane lane(const std::string& name, bool cuda) {
  return backends::Lane{std::make_unique<NamedBackend>(name, cuda),
                        std::make_unique<backends::HostMemory>()};
}

std::string select_error(LaneSelector& s, Device device) {
  try {
    s.select(device, DataType::kFloat32, ReduceOp::kSum);
  } catch (const hvd::Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("lane selector: host tensors take the host lane and never make the GPU lane") {
  int made = 0;
  LaneSelector s(lane("ring/shm", false), [&](Device) {
    ++made;
    return lane("nccl", true);
  });
  for (DataType t : {DataType::kUInt8, DataType::kInt32, DataType::kInt64, DataType::kFloat16,
                     DataType::kBFloat16, DataType::kFloat32, DataType::kFloat64}) {
    CHECK(s.select(Device{}, t, ReduceOp::kSum).backend->name() == "ring/shm");
  }
  CHECK(made == 0);
  CHECK_FALSE(s.has_gpu_lane());
}

TEST_CASE("lane selector: the GPU lane is made on the first CUDA tensor, once") {
  int made = 0;
  int made_for = -2;
  LaneSelector s(lane("ring/shm", false), [&](Device d) {
    ++made;
    made_for = d.index;
    return lane("nccl", true);
  });
  CHECK(s.select(Device{0}, DataType::kBFloat16, ReduceOp::kMax).backend->name() == "nccl");
  CHECK(s.select(Device{0}, DataType::kInt64, ReduceOp::kSum).backend->name() == "nccl");
  CHECK(s.select(Device{}, DataType::kInt64, ReduceOp::kSum).backend->name() == "ring/shm");
  CHECK(made == 1);
  CHECK(made_for == 0);
  CHECK(s.has_gpu_lane());
  // One GPU per rank: a second device is refused, and says why.
  const std::string other = select_error(s, Device{1});
  CHECK(other.find("CUDA device 1, but this rank's NCCL communicator is on CUDA device 0") !=
        std::string::npos);
  CHECK(made == 1);
}

TEST_CASE("lane selector: a CUDA tensor in a build without the GPU backend names the fix") {
  LaneSelector s(lane("ring/tcp", false), {});
  CHECK_THROWS_AS(s.select(Device{0}, DataType::kFloat32, ReduceOp::kSum), hvd::ConfigError);
  const std::string message = select_error(s, Device{0});
  CHECK(message.find("this libhvd was built without NCCL; rebuild with -DHVD_WITH_NCCL=ON") !=
        std::string::npos);
  // Host tensors are unaffected.
  CHECK(s.select(Device{}, DataType::kFloat32, ReduceOp::kSum).backend->name() == "ring/tcp");
}

TEST_CASE("lane selector: a failed GPU lane is not retried and fails every later CUDA tensor") {
  int tries = 0;
  LaneSelector s(lane("ring/shm", false), [&](Device) -> backends::Lane {
    ++tries;
    throw hvd::BackendError("NCCL: no GPU here");
  });
  CHECK(select_error(s, Device{0}) == "NCCL: no GPU here");
  CHECK(select_error(s, Device{0}) == "NCCL: no GPU here");
  CHECK(tries == 1);
  CHECK(s.select(Device{}, DataType::kFloat32, ReduceOp::kSum).backend->name() == "ring/shm");
}

TEST_CASE("lane selector: what the lane's backend cannot do is refused with a ConfigError") {
  LaneSelector s(lane("ring/shm", false), [&](Device) { return lane("nccl", true); });
  CHECK_THROWS_WITH_AS(s.select(Device{0}, DataType::kUInt8, ReduceOp::kProduct),
                       "backend nccl cannot product uint8 tensors on a CUDA device",
                       hvd::ConfigError);
}
