// SPDX-License-Identifier: Apache-2.0
// gpu_probe: libhvd on CUDA tensors through the public API, under `hvdrun -np N`: allreduce of
// every dtype and op at 0, 1, a prime and 64 MiB, with pre/post scale; many small fused tensors
// at misaligned addresses; grouped allreduce; broadcast; allgather with uneven first
// dimensions; reducescatter; alltoall. Results are compared with host references (exact for
// integers, float64 references for floats). Exits 77 (ctest's skip) when CUDA sees no device.
//
//   gpu_probe           the checks above; rank 0 prints a summary line
//   gpu_probe --time    also times a 64 MiB float32 allreduce and a fused step of 100 x 4 KiB
//   gpu_probe --device-count   prints how many CUDA devices this process sees (no libhvd)
//   gpu_probe --kill-rank R    rank R SIGKILLs itself once the NCCL communicator exists; the
//                              others keep reducing CUDA tensors until that fails, print
//                              "rank N: survivor error: ..." and exit 4 (they must not hang)

#include <cuda_runtime.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "hvd/hvd.h"
#include "probe_data.h"

namespace {

using probe_data::DataType;
using probe_data::ReduceOp;

constexpr int kSkip = 77;
int g_failures = 0;
int g_checks = 0;
int g_device = 0;

void cuda_ok(cudaError_t rc, const char* what) {
  if (rc != cudaSuccess) {
    std::fprintf(stderr, "rank %d: FAILED %s: %s\n", hvd::rank(), what, cudaGetErrorString(rc));
    std::exit(1);
  }
}

void must(const hvd::Status& s, const std::string& what) {
  if (!s.ok()) {
    std::fprintf(stderr, "rank %d: FAILED %s: %s\n", hvd::rank(), what.c_str(),
                 s.message().c_str());
    std::exit(1);
  }
}

void expect(bool ok) {
  ++g_checks;
  if (!ok) ++g_failures;
}

// Device memory holding a copy of host bytes.
class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t bytes) : bytes_(bytes) {
    cuda_ok(cudaMalloc(&data_, std::max<size_t>(bytes, 1)), "cudaMalloc");
  }
  explicit DeviceBuffer(const std::vector<char>& host) : DeviceBuffer(host.size()) {
    cuda_ok(cudaMemcpy(data_, host.data(), host.size(), cudaMemcpyHostToDevice), "upload");
  }
  ~DeviceBuffer() { (void)cudaFree(data_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  char* data() const { return static_cast<char*>(data_); }
  std::vector<char> download(size_t offset, size_t bytes) const {
    std::vector<char> host(bytes);
    cuda_ok(cudaMemcpy(host.data(), data() + offset, bytes, cudaMemcpyDeviceToHost), "download");
    return host;
  }
  std::vector<char> download() const { return download(0, bytes_); }

 private:
  void* data_ = nullptr;
  size_t bytes_;
};

hvd::TensorView cuda_view(void* data, DataType t, std::vector<int64_t> shape) {
  return hvd::TensorView{data, t, std::move(shape), hvd::Device{g_device}};
}

const std::vector<DataType> kTypes = {DataType::kUInt8,   DataType::kInt32,    DataType::kInt64,
                                      DataType::kFloat16, DataType::kBFloat16, DataType::kFloat32,
                                      DataType::kFloat64};
const std::vector<ReduceOp> kOps = {ReduceOp::kSum, ReduceOp::kAverage, ReduceOp::kMin,
                                    ReduceOp::kMax, ReduceOp::kProduct};

// One allreduce, in place or out of place, checked against the reference.
void allreduce_case(DataType t, ReduceOp op, size_t count, double pre, double post, bool in_place) {
  const std::string name = "allreduce." + std::string(hvd::dtype_name(t)) + "." +
                           std::string(hvd::op_name(op)) + "." + std::to_string(count) +
                           (pre != 1.0 ? ".scaled" : "");
  const int64_t n = static_cast<int64_t>(count);
  DeviceBuffer in(probe_data::inputs(t, hvd::rank(), count, op));
  DeviceBuffer out(count * hvd::dtype_size(t));
  DeviceBuffer& result = in_place ? in : out;
  must(hvd::allreduce_async(name, cuda_view(in.data(), t, {n}), cuda_view(result.data(), t, {n}),
                            op, pre, post)
           .wait(),
       name);
  expect(probe_data::matches(name, t, result.download(),
                             probe_data::reference(t, hvd::size(), op, pre, post)));
}

void allreduce_all() {
  for (DataType t : kTypes) {
    for (ReduceOp op : kOps) {
      const size_t big = (size_t{64} << 20) / hvd::dtype_size(t);
      for (size_t count : {size_t{0}, size_t{1}, size_t{100003}, big}) {
        allreduce_case(t, op, count, 1.0, 1.0, count % 2 == 0);
      }
    }
    // Scaling around the reduction (integers truncate after each factor, as on the host).
    const double pre = probe_data::is_integer(t) ? 2.0 : 0.5;
    const double post = probe_data::is_integer(t) ? 0.5 : 3.0;
    allreduce_case(t, ReduceOp::kSum, 1009, pre, post, true);
    allreduce_case(t, ReduceOp::kAverage, 1009, pre, post, false);
  }
}

// Many small tensors of one dtype at odd byte offsets inside one allocation, enqueued together
// so that they fuse (the batched copy kernel's unaligned and aligned paths), then a group.
void fused_case(DataType t, int tensors, bool grouped) {
  const size_t elem = hvd::dtype_size(t);
  std::vector<size_t> counts, offsets;
  size_t at = elem;  // never 16-byte aligned for the 1- and 2-byte types
  for (int i = 0; i < tensors; ++i) {
    counts.push_back(static_cast<size_t>(1 + (i * 37) % 700));
    offsets.push_back(at);
    at += (counts.back() + 3) * elem;
  }
  std::vector<char> host(at);
  for (int i = 0; i < tensors; ++i) {
    const auto v =
        probe_data::inputs(t, hvd::rank(), counts[static_cast<size_t>(i)], ReduceOp::kSum);
    std::copy(v.begin(), v.end(),
              host.begin() + static_cast<std::ptrdiff_t>(offsets[static_cast<size_t>(i)]));
  }
  DeviceBuffer buf(host);
  std::vector<std::string> names;
  std::vector<hvd::TensorView> views;
  const std::string prefix =
      std::string(grouped ? "group." : "fused.") + std::string(hvd::dtype_name(t));
  for (int i = 0; i < tensors; ++i) {
    names.push_back(prefix + "." + std::to_string(i));
    views.push_back(cuda_view(buf.data() + offsets[static_cast<size_t>(i)], t,
                              {static_cast<int64_t>(counts[static_cast<size_t>(i)])}));
  }
  std::vector<hvd::Handle> handles;
  if (grouped) {
    handles = hvd::grouped_allreduce_async(names, views, views, ReduceOp::kSum);
  } else {
    for (int i = 0; i < tensors; ++i) {
      handles.push_back(hvd::allreduce_async(names[static_cast<size_t>(i)],
                                             views[static_cast<size_t>(i)],
                                             views[static_cast<size_t>(i)], ReduceOp::kSum));
    }
  }
  for (const hvd::Handle& h : handles) must(h.wait(), prefix);
  const auto want = probe_data::reference(t, hvd::size(), ReduceOp::kSum, 1.0, 1.0);
  const std::vector<char> after = buf.download();
  for (int i = 0; i < tensors; ++i) {
    const size_t first = offsets[static_cast<size_t>(i)];
    const size_t bytes = counts[static_cast<size_t>(i)] * elem;
    expect(probe_data::matches(names[static_cast<size_t>(i)], t,
                               {after.begin() + static_cast<std::ptrdiff_t>(first),
                                after.begin() + static_cast<std::ptrdiff_t>(first + bytes)},
                               want));
    // The gap after each tensor must be untouched by the copies out of the fusion buffer.
    const size_t gap_end = i + 1 < tensors ? offsets[static_cast<size_t>(i) + 1] : after.size();
    expect(std::all_of(after.begin() + static_cast<std::ptrdiff_t>(first + bytes),
                       after.begin() + static_cast<std::ptrdiff_t>(gap_end),
                       [](char c) { return c == 0; }));
  }
}

// Broadcast from the last rank, in place and out of place.
void broadcast_case(DataType t, size_t count) {
  const int root = hvd::size() - 1;
  const std::string name = "broadcast." + std::string(hvd::dtype_name(t));
  DeviceBuffer in(probe_data::inputs(t, hvd::rank(), count, ReduceOp::kMax));
  DeviceBuffer out(count * hvd::dtype_size(t));
  const int64_t n = static_cast<int64_t>(count);
  must(hvd::broadcast_async(name, cuda_view(in.data(), t, {n}), cuda_view(out.data(), t, {n}), root)
           .wait(),
       name);
  must(hvd::broadcast_async(name + ".inplace", cuda_view(in.data(), t, {n}),
                            cuda_view(in.data(), t, {n}), root)
           .wait(),
       name);
  std::vector<double> want(probe_data::kPeriod);
  for (size_t k = 0; k < want.size(); ++k) want[k] = probe_data::input(root, k, ReduceOp::kMax);
  expect(probe_data::matches(name, t, out.download(), want));
  expect(probe_data::matches(name + ".inplace", t, in.download(), want));
}

// Rank r gives rank_rows(r) rows of 3; the gathered tensor comes back in host memory.
void allgather_case(DataType t, bool even) {
  const auto rows_of = [even](int r) { return even ? 2 : r + 1 + (r % 2) * 3; };
  const std::string name =
      std::string("allgather.") + (even ? "even." : "uneven.") + std::string(hvd::dtype_name(t));
  const int rows = rows_of(hvd::rank());
  DeviceBuffer in(
      probe_data::inputs(t, hvd::rank(), static_cast<size_t>(rows) * 3, ReduceOp::kMax));
  hvd::Handle h = hvd::allgather_async(name, cuda_view(in.data(), t, {rows, 3}));
  must(h.wait(), name);
  int total = 0;
  std::vector<double> want;
  for (int r = 0; r < hvd::size(); ++r) {
    total += rows_of(r);
    for (size_t i = 0; i < static_cast<size_t>(rows_of(r)) * 3; ++i) {
      want.push_back(probe_data::input(r, i, ReduceOp::kMax));
    }
  }
  expect(h.output_shape() == std::vector<int64_t>{total, 3});
  expect(probe_data::matches(name, t, h.output(), want));
}

// Horovod's split: the first rows % size ranks get one row more.
int64_t block_rows(int64_t rows, int rank, int size) {
  return rows / size + (rank < rows % size ? 1 : 0);
}

void reducescatter_case(DataType t, ReduceOp op) {
  const int size = hvd::size(), rank = hvd::rank();
  const int64_t rows = 2 * size + 1, cols = 5;
  const std::string name =
      "reducescatter." + std::string(hvd::dtype_name(t)) + "." + std::string(hvd::op_name(op));
  DeviceBuffer in(probe_data::inputs(t, rank, static_cast<size_t>(rows * cols), op));
  const int64_t mine = block_rows(rows, rank, size);
  DeviceBuffer out(static_cast<size_t>(mine * cols) * hvd::dtype_size(t));
  must(hvd::reducescatter_async(name, cuda_view(in.data(), t, {rows, cols}),
                                cuda_view(out.data(), t, {mine, cols}), op)
           .wait(),
       name);
  int64_t first = 0;
  for (int r = 0; r < rank; ++r) first += block_rows(rows, r, size);
  const auto all = probe_data::reference(t, size, op, 1.0, 1.0);
  std::vector<double> want;
  for (int64_t i = 0; i < mine * cols; ++i)
    want.push_back(all[static_cast<size_t>(first * cols + i)]);
  expect(probe_data::matches(name, t, out.download(), want));
}

// Every rank sends block r of its rows to rank r (the executor's receive counts assume rows
// that divide evenly, as the API's "same shape on every rank" does).
void alltoall_case(DataType t) {
  const int size = hvd::size(), rank = hvd::rank();
  const int64_t rows = 2 * size, cols = 3;
  const std::string name = "alltoall." + std::string(hvd::dtype_name(t));
  DeviceBuffer in(probe_data::inputs(t, rank, static_cast<size_t>(rows * cols), ReduceOp::kMax));
  DeviceBuffer out(static_cast<size_t>(rows * cols) * hvd::dtype_size(t));
  must(hvd::alltoall_async(name, cuda_view(in.data(), t, {rows, cols}),
                           cuda_view(out.data(), t, {rows, cols}))
           .wait(),
       name);
  // From each rank q: the block of q's rows that belongs to this rank.
  std::vector<double> want;
  int64_t mine_first = 0;
  for (int r = 0; r < rank; ++r) mine_first += block_rows(rows, r, size);
  const int64_t mine = block_rows(rows, rank, size);
  for (int q = 0; q < size; ++q) {
    for (int64_t i = mine_first * cols; i < (mine_first + mine) * cols; ++i) {
      want.push_back(probe_data::input(q, static_cast<size_t>(i), ReduceOp::kMax));
    }
  }
  expect(probe_data::matches(name, t, out.download(), want));
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Rank 0 prints the mean time of a 64 MiB float32 allreduce and of a step of 100 fused 4 KiB
// tensors (which includes libhvd's negotiation cycle, HOROVOD_CYCLE_TIME).
void timing() {
  constexpr int kWarmup = 5, kIters = 20;
  const size_t count = (size_t{64} << 20) / 4;
  DeviceBuffer big(count * 4);
  const auto big_view = cuda_view(big.data(), DataType::kFloat32, {static_cast<int64_t>(count)});
  double big_s = 0;
  for (int i = 0; i < kWarmup + kIters; ++i) {
    const auto start = std::chrono::steady_clock::now();
    must(hvd::allreduce_async("time.big", big_view, big_view, ReduceOp::kSum).wait(), "time.big");
    if (i >= kWarmup) big_s += seconds_since(start) / kIters;
  }
  constexpr int kSmall = 100;
  const size_t small = 4096 / 4;
  DeviceBuffer smalls(kSmall * small * 4);
  double step_s = 0;
  for (int i = 0; i < kWarmup + kIters; ++i) {
    const auto start = std::chrono::steady_clock::now();
    std::vector<hvd::Handle> handles;
    for (int j = 0; j < kSmall; ++j) {
      const auto v = cuda_view(smalls.data() + static_cast<size_t>(j) * small * 4,
                               DataType::kFloat32, {static_cast<int64_t>(small)});
      handles.push_back(hvd::allreduce_async("time.small." + std::to_string(j), v, v));
    }
    for (const hvd::Handle& h : handles) must(h.wait(), "time.small");
    if (i >= kWarmup) step_s += seconds_since(start) / kIters;
  }
  if (hvd::rank() != 0) return;
  const double bytes = static_cast<double>(count * 4);
  const double n = hvd::size();
  std::printf(
      "gpu_probe timing (np=%d): allreduce float32 64 MiB: %.3f ms, algbw %.1f GB/s, "
      "busbw %.1f GB/s\n",
      hvd::size(), big_s * 1e3, bytes / big_s / 1e9, bytes / big_s / 1e9 * 2 * (n - 1) / n);
  std::printf("gpu_probe timing (np=%d): fused step of 100 x 4 KiB float32: %.3f ms\n", hvd::size(),
              step_s * 1e3);
}

// A peer dies after the communicator was made: the survivors' next collectives must fail
// (through the control channel or NCCL's abort after HVD_NCCL_TIMEOUT), never hang.
int survive_a_dead_peer(int victim) {
  const size_t count = size_t{4} << 20;
  DeviceBuffer buf(count * 4);
  const auto v = cuda_view(buf.data(), DataType::kFloat32, {static_cast<int64_t>(count)});
  must(hvd::allreduce_async("before", v, v, ReduceOp::kSum).wait(), "before");
  if (hvd::rank() == victim) raise(SIGKILL);
  for (int step = 0;; ++step) {
    const hvd::Status s = hvd::allreduce_async("after." + std::to_string(step), v, v).wait();
    if (!s.ok()) {
      std::fprintf(stderr, "rank %d: survivor error: %s\n", hvd::rank(), s.message().c_str());
      return 4;
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  int devices = 0;
  const cudaError_t counted = cudaGetDeviceCount(&devices);
  if (counted != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "gpu_probe: no CUDA device visible (%s); skipped\n",
                 counted != cudaSuccess ? cudaGetErrorString(counted) : "0 devices");
    return kSkip;
  }
  if (mode == "--device-count") {
    std::printf("%d\n", devices);
    return 0;
  }
  // In kill-rank mode hvdrun's SIGTERM (sent when it sees the victim die) is ignored, so that
  // what ends the survivors is libhvd noticing the dead peer.
  if (mode == "--kill-rank") signal(SIGTERM, SIG_IGN);
  must(hvd::init(), "hvd::init");
  g_device = hvd::local_rank() % devices;
  cuda_ok(cudaSetDevice(g_device), "cudaSetDevice");
  if (mode == "--kill-rank" && argc > 2) return survive_a_dead_peer(std::atoi(argv[2]));
  allreduce_all();
  for (DataType t : kTypes) {
    fused_case(t, 60, false);
    fused_case(t, 25, true);
    broadcast_case(t, 100003);
    allgather_case(t, true);
    allgather_case(t, false);
    reducescatter_case(t, ReduceOp::kSum);
    reducescatter_case(t, ReduceOp::kMax);
    alltoall_case(t);
  }
  must(hvd::barrier(), "barrier");
  if (mode == "--time" && g_failures == 0) timing();
  if (hvd::rank() == 0 || g_failures > 0) {
    std::printf("gpu_probe rank %d of %d on cuda:%d: %d of %d checks passed\n", hvd::rank(),
                hvd::size(), g_device, g_checks - g_failures, g_checks);
  }
  must(hvd::shutdown(), "hvd::shutdown");
  return g_failures == 0 ? 0 : 1;
}
