// SPDX-License-Identifier: Apache-2.0
// The executor's device path without a GPU: "CUDA" tensors (host memory marked as device 0)
// run through a fake GPU lane whose memory operations record what they were asked, so that the
// lane choice, the lazy creation, the aligned fusion layout, scaling and the copy of an
// allgather back to the host are checked here; tests/helpers/gpu_probe.cc runs the real NCCL
// lane on a GPU.

#include <doctest/doctest.h>

#include <atomic>
#include <cstring>
#include <functional>
#include <vector>

#include "backends/memory_ops.h"
#include "common/reduce_kernels.h"
#include "core/runtime.h"
#include "fakes/fake_backend.h"
#include "fakes/fake_channel.h"
#include "fakes/thread_world.h"

namespace backends = hvd::backends;
namespace control = hvd::control;
namespace core = hvd::core;
using hvd::BufferView;
using hvd::DataType;
using hvd::Device;
using hvd::ReduceOp;

namespace {

constexpr Device kGpu{0};

class FakeGpuBackend : public hvd::test::FakeBackend {
 public:
  using FakeBackend::FakeBackend;
  std::string_view name() const override { return "fakegpu"; }
  bool supports(Device device, DataType, ReduceOp op) const override {
    return device == kGpu && op != ReduceOp::kAverage;
  }
};

// What one rank's fake GPU memory was asked to do.
struct MemoryLog {
  int copy_calls = 0;
  size_t most_segments = 0;  // in one copy() call
  int scale_calls = 0;
  int to_host_calls = 0;
};

// Host memory behind the MemoryOps of a GPU lane: 16-byte fusion alignment, like CudaMemory.
class RecordingMemory : public backends::MemoryOps {
 public:
  explicit RecordingMemory(MemoryLog& log) : log_(log) {}
  void copy(const std::vector<backends::CopySegment>& segments) override {
    ++log_.copy_calls;
    log_.most_segments = std::max(log_.most_segments, segments.size());
    for (const auto& s : segments) std::memcpy(s.dst, s.src, s.bytes);
  }
  void scale(BufferView b, double factor) override {
    ++log_.scale_calls;
    hvd::scale(b.data, b.count, b.dtype, factor);
  }
  void to_host(void* dst, const void* src, size_t bytes) override {
    ++log_.to_host_calls;
    std::memcpy(dst, src, bytes);
  }
  void* buffer(backends::BufferSlot slot, size_t bytes) override {
    auto& b = slot == backends::BufferSlot::kFusion ? fusion_ : scratch_;
    if (b.size() < bytes) b.resize(bytes);
    return b.data();
  }
  size_t buffer_bytes(backends::BufferSlot slot) const override {
    return (slot == backends::BufferSlot::kFusion ? fusion_ : scratch_).size();
  }
  size_t fusion_alignment() const override { return 16; }

 private:
  MemoryLog& log_;
  std::vector<char> fusion_, scratch_;
};

struct RankGpu {
  MemoryLog log;
  int lanes_made = 0;
};

// `size` ranks as threads; with_gpu false is a build without the GPU backend.
void spawn(int size, bool with_gpu,
           const std::function<void(int, core::Runtime&, RankGpu&)>& body) {
  hvd::test::FakeChannelHub channel_hub(size), host_hub(size), gpu_hub(size);
  std::vector<RankGpu> gpus(static_cast<size_t>(size));
  hvd::test::spawn(size, [&](int rank) {
    hvd::bootstrap::WorldInfo world;
    world.rank = rank;
    world.size = size;
    core::RuntimeOptions options;
    options.cycle_time = std::chrono::microseconds(200);
    RankGpu& gpu = gpus[static_cast<size_t>(rank)];
    core::GpuLaneFactory factory;
    if (with_gpu) {
      factory = [&gpu, &gpu_hub, rank](Device) {
        ++gpu.lanes_made;
        return backends::Lane{std::make_unique<FakeGpuBackend>(gpu_hub, rank),
                              std::make_unique<RecordingMemory>(gpu.log)};
      };
    }
    core::Runtime runtime(world, std::make_unique<hvd::test::FakeChannel>(channel_hub, rank),
                          std::make_unique<hvd::test::FakeBackend>(host_hub, rank), options,
                          factory);
    body(rank, runtime, gpu);
  });
}

control::Request req(const std::string& name, control::OpType type, DataType dtype,
                     std::vector<int64_t> shape, Device device, ReduceOp op = ReduceOp::kSum) {
  control::Request r;
  r.name = name;
  r.type = type;
  r.dtype = dtype;
  r.shape = std::move(shape);
  r.device = device;
  r.op = op;
  return r;
}

}  // namespace

TEST_CASE("device path: CUDA tensors are fused on the GPU lane, host tensors stay on the host") {
  spawn(3, true, [](int rank, core::Runtime& rt, RankGpu& gpu) {
    // int32 with odd counts, so that 16-byte alignment leaves padding between tensors.
    std::vector<std::vector<int32_t>> cuda(5), host(2);
    std::vector<control::Request> requests;
    std::vector<BufferView> views;
    for (size_t i = 0; i < cuda.size(); ++i) {
      cuda[i].assign(2 * i + 1, rank * 10 + static_cast<int32_t>(i));
      requests.push_back(req("c" + std::to_string(i), control::OpType::kAllreduce, DataType::kInt32,
                             {static_cast<int64_t>(cuda[i].size())}, kGpu, ReduceOp::kAverage));
      views.push_back({cuda[i].data(), cuda[i].size(), DataType::kInt32, kGpu});
    }
    for (size_t i = 0; i < host.size(); ++i) {
      host[i].assign(3, rank + 1);
      requests.push_back(req("h" + std::to_string(i), control::OpType::kAllreduce, DataType::kInt32,
                             {3}, Device{}, ReduceOp::kAverage));
      views.push_back({host[i].data(), 3, DataType::kInt32, {}});
    }
    // A group must not mix devices: the CUDA tensors form one, the host tensors another.
    for (size_t i = 0; i < requests.size(); ++i) requests[i].group = i < cuda.size() ? 7 : 8;
    const auto split = static_cast<std::ptrdiff_t>(cuda.size());
    auto handles = rt.enqueue_group({requests.begin(), requests.begin() + split},
                                    {views.begin(), views.begin() + split},
                                    {views.begin(), views.begin() + split});
    for (auto& h : rt.enqueue_group({requests.begin() + split, requests.end()},
                                    {views.begin() + split, views.end()},
                                    {views.begin() + split, views.end()})) {
      handles.push_back(h);
    }
    for (auto& h : handles) {
      const hvd::Status s = h->wait();
      REQUIRE_MESSAGE(s.ok(), s.message());
    }
    for (size_t i = 0; i < cuda.size(); ++i) {
      // (0 + 10 + 20 + 3i) / 3, integer division as on the host path.
      for (int32_t v : cuda[i]) CHECK(v == (30 + 3 * static_cast<int32_t>(i)) / 3);
    }
    for (const auto& h : host) CHECK(h == std::vector<int32_t>(3, 2));  // (1 + 2 + 3) / 3
    CHECK(gpu.lanes_made == 1);
    CHECK(gpu.log.most_segments == 5);  // one copy call moved all five tensors in
    CHECK(gpu.log.copy_calls == 2);     // in and out
    CHECK(gpu.log.scale_calls == 1);    // the average's division
  });
}

TEST_CASE("device path: prescale, broadcast, allgather back to host, reducescatter, alltoall") {
  spawn(2, true, [](int rank, core::Runtime& rt, RankGpu& gpu) {
    std::vector<float> x(4, 1.0f + static_cast<float>(rank));
    BufferView xv{x.data(), 4, DataType::kFloat32, kGpu};
    control::Request xr = req("x", control::OpType::kAllreduce, DataType::kFloat32, {4}, kGpu);
    xr.prescale = 0.5;
    xr.postscale = 4.0;
    REQUIRE(rt.enqueue(xr, xv, xv)->wait().ok());
    CHECK(x == std::vector<float>(4, 6.0f));  // (0.5 + 1) * 4

    std::vector<int64_t> b(3, rank == 1 ? 42 : 0), bout(3);
    control::Request br = req("b", control::OpType::kBroadcast, DataType::kInt64, {3}, kGpu);
    br.root = 1;
    REQUIRE(rt.enqueue(br, {b.data(), 3, DataType::kInt64, kGpu},
                       {bout.data(), 3, DataType::kInt64, kGpu})
                ->wait()
                .ok());
    CHECK(bout == std::vector<int64_t>(3, 42));

    std::vector<uint8_t> g(static_cast<size_t>(rank + 1), static_cast<uint8_t>(rank + 7));
    BufferView gv{g.data(), g.size(), DataType::kUInt8, kGpu};
    auto gh = rt.enqueue(req("g", control::OpType::kAllgather, DataType::kUInt8, {rank + 1}, kGpu),
                         gv, gv);
    REQUIRE(gh->wait().ok());
    CHECK(gh->output_shape == std::vector<int64_t>{3});
    CHECK(std::vector<char>(gh->output.begin(), gh->output.end()) == std::vector<char>{7, 8, 8});
    CHECK(gpu.log.to_host_calls == 1);

    std::vector<double> in{1, 2, 3}, out(rank == 0 ? 2 : 1);
    auto rh = rt.enqueue(req("rs", control::OpType::kReducescatter, DataType::kFloat64, {3}, kGpu),
                         {in.data(), 3, DataType::kFloat64, kGpu},
                         {out.data(), out.size(), DataType::kFloat64, kGpu});
    REQUIRE(rh->wait().ok());
    CHECK(out == (rank == 0 ? std::vector<double>{2, 4} : std::vector<double>{6}));
    CHECK(in == std::vector<double>{1, 2, 3});  // the input is left alone

    std::vector<int32_t> a{rank * 10, rank * 10 + 1}, aout(2);
    auto ah =
        rt.enqueue(req("a2a", control::OpType::kAlltoall, DataType::kInt32, {2}, kGpu),
                   {a.data(), 2, DataType::kInt32, kGpu}, {aout.data(), 2, DataType::kInt32, kGpu});
    REQUIRE(ah->wait().ok());
    CHECK(aout == std::vector<int32_t>{rank, 10 + rank});
    CHECK(gpu.lanes_made == 1);
  });
}

TEST_CASE("device path: without the GPU backend a CUDA tensor fails, the rest keeps running") {
  spawn(2, false, [](int, core::Runtime& rt, RankGpu&) {
    std::vector<float> c(3, 1.0f), h(3, 1.0f);
    BufferView cv{c.data(), 3, DataType::kFloat32, kGpu};
    BufferView hv{h.data(), 3, DataType::kFloat32, {}};
    auto ch =
        rt.enqueue(req("c", control::OpType::kAllreduce, DataType::kFloat32, {3}, kGpu), cv, cv);
    auto hh = rt.enqueue(req("h", control::OpType::kAllreduce, DataType::kFloat32, {3}, Device{}),
                         hv, hv);
    const hvd::Status cs = ch->wait();
    CHECK(cs.code() == hvd::ErrorCode::kConfig);
    CHECK(cs.message().find("this libhvd was built without NCCL; rebuild with "
                            "-DHVD_WITH_NCCL=ON") != std::string::npos);
    CHECK(c == std::vector<float>(3, 1.0f));  // untouched
    REQUIRE(hh->wait().ok());
    CHECK(h == std::vector<float>(3, 2.0f));
    // The loop is still alive.
    auto again = rt.enqueue(
        req("h2", control::OpType::kAllreduce, DataType::kFloat32, {3}, Device{}), hv, hv);
    REQUIRE(again->wait().ok());
    CHECK(h == std::vector<float>(3, 4.0f));
  });
}
