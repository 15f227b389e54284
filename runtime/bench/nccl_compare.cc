// SPDX-License-Identifier: Apache-2.0
// hvd-bench-nccl: libhvd's path for CUDA tensors (hvd::allreduce_async on device memory, which
// the runtime hands to NCCL) against raw ncclAllReduce on a communicator of the same ranks and
// GPUs, in one run, from 8 B to 1 GiB of float32 (issue 14's GPU targets: <= 1.02x from 64 MiB,
// <= 1.5x at 8 B). Both sides wait until the GPU is done, as a caller of either would: the raw
// side with cudaStreamSynchronize, libhvd's inside Handle::wait(). Rounds alternate between the
// two and the best round of each counts; a row's time is the slowest rank's. Run it under
// hvdrun with one rank per GPU:
//     hvdrun -np <GPUs> hvd-bench-nccl [--min-bytes 8] [--max-bytes 1G] [--rounds 3]
// Built only where libhvd has its GPU backend (CUDA and NCCL).

#include <cuda_runtime.h>
#include <nccl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "bench/bench_options.h"
#include "hvd/error.h"
#include "hvd/hvd.h"
#include "hvd/str_cat.h"

namespace {

using hvd::DataType;
using hvd::ReduceOp;
using Clock = std::chrono::steady_clock;

void cuda_ok(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw hvd::BackendError(hvd::str_cat(what, ": ", cudaGetErrorString(e)));
}

void nccl_ok(ncclResult_t r, const char* what) {
  if (r != ncclSuccess) throw hvd::BackendError(hvd::str_cat(what, ": ", ncclGetErrorString(r)));
}

void hvd_ok(const hvd::Status& s, const std::string& what) {
  if (!s.ok()) throw hvd::Error(s.code(), what + ": " + s.message());
}

// Zeroed device memory: repeated sums of zeros stay finite and never denormal.
class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t bytes) {
    cuda_ok(cudaMalloc(&data_, bytes), "cudaMalloc");
    cuda_ok(cudaMemset(data_, 0, bytes), "cudaMemset");
  }
  ~DeviceBuffer() { (void)cudaFree(data_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  void* data() const { return data_; }

 private:
  void* data_ = nullptr;
};

// A communicator of all ranks, on this rank's GPU; rank 0's unique id reaches the others
// through libhvd's own broadcast of host memory.
ncclComm_t make_comm() {
  ncclUniqueId id{};
  if (hvd::rank() == 0) nccl_ok(ncclGetUniqueId(&id), "ncclGetUniqueId");
  const hvd::TensorView view{
      &id, DataType::kUInt8, {static_cast<int64_t>(sizeof(id))}, hvd::Device{}};
  hvd_ok(hvd::broadcast_async("nccl-bench/unique-id", view, view, 0).wait(), "broadcast id");
  ncclComm_t comm = nullptr;
  nccl_ok(ncclCommInitRank(&comm, hvd::size(), id, hvd::rank()), "ncclCommInitRank");
  return comm;
}

// Microseconds per call of `step`, the slowest rank's, after `warmup` untimed calls.
template <typename Step>
double time_us(int warmup, int iters, const Step& step) {
  for (int i = 0; i < warmup; ++i) step();
  hvd_ok(hvd::barrier(), "barrier");
  const auto start = Clock::now();
  for (int i = 0; i < iters; ++i) step();
  double us = std::chrono::duration<double, std::micro>(Clock::now() - start).count() / iters;
  const hvd::TensorView v{&us, DataType::kFloat64, {1}, hvd::Device{}};
  hvd_ok(hvd::allreduce_async("nccl-bench/slowest", v, v, ReduceOp::kMax).wait(), "max");
  return us;
}

struct Row {
  size_t bytes;
  double hvd_us, nccl_us;
};

void print_targets(const std::vector<Row>& rows) {
  const Row* worst_large = nullptr;
  for (const Row& r : rows) {
    if (r.bytes >= (size_t{64} << 20) &&
        (worst_large == nullptr ||
         r.hvd_us / r.nccl_us > worst_large->hvd_us / worst_large->nccl_us)) {
      worst_large = &r;
    }
  }
  const auto line = [](const char* what, const Row& r, double limit) {
    const double ratio = r.hvd_us / r.nccl_us;
    std::printf("target: %s: measured at %zu B: %.2f us vs %.2f us (ratio %.3f) -> %s\n", what,
                r.bytes, r.hvd_us, r.nccl_us, ratio, ratio <= limit ? "met" : "missed");
  };
  if (worst_large != nullptr) {
    line("libhvd's NCCL path <= 1.02x raw ncclAllReduce from 64 MiB (worst row)", *worst_large,
         1.02);
  }
  if (!rows.empty() && rows.front().bytes == 8) {
    line("libhvd's NCCL path <= 1.5x raw ncclAllReduce at 8 B", rows.front(), 1.5);
  }
}

int run(size_t min_bytes, size_t max_bytes, int rounds) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "hvd-bench-nccl: no CUDA device visible\n");
    return 1;
  }
  hvd_ok(hvd::init(), "hvd::init");
  const int device = hvd::local_rank() % devices;
  cuda_ok(cudaSetDevice(device), "cudaSetDevice");
  cudaStream_t stream = nullptr;
  cuda_ok(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  ncclComm_t comm = make_comm();
  if (hvd::rank() == 0) {
    std::printf(
        "# hvd-bench-nccl: %d ranks, float32 sum in place, best of %d alternating rounds; "
        "time: the slowest rank's mean per call\n",
        hvd::size(), rounds);
    std::printf("%14s %8s %14s %14s %9s\n", "bytes", "iters", "libhvd (us)", "ncclAllReduce",
                "ratio");
  }
  std::vector<Row> rows;
  for (size_t bytes = std::max<size_t>(min_bytes, 8); bytes <= max_bytes; bytes *= 2) {
    const size_t count = bytes / sizeof(float);
    const int iters = bytes <= (size_t{1} << 20) ? 200 : bytes <= (size_t{64} << 20) ? 20 : 5;
    const int warmup = bytes <= (size_t{64} << 20) ? 5 : 2;
    DeviceBuffer mine(count * sizeof(float)), theirs(count * sizeof(float));
    const hvd::TensorView view{
        mine.data(), DataType::kFloat32, {static_cast<int64_t>(count)}, hvd::Device{device}};
    const std::string name = hvd::str_cat("nccl-bench/", bytes);
    const auto hvd_step = [&] {
      hvd_ok(hvd::allreduce_async(name, view, view, ReduceOp::kSum).wait(), name);
    };
    const auto nccl_step = [&] {
      nccl_ok(
          ncclAllReduce(theirs.data(), theirs.data(), count, ncclFloat32, ncclSum, comm, stream),
          "ncclAllReduce");
      cuda_ok(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    };
    Row row{bytes, 1e300, 1e300};
    for (int round = 0; round < rounds; ++round) {
      row.hvd_us = std::min(row.hvd_us, time_us(warmup, iters, hvd_step));
      row.nccl_us = std::min(row.nccl_us, time_us(warmup, iters, nccl_step));
    }
    rows.push_back(row);
    if (hvd::rank() == 0) {
      std::printf("%14zu %8d %14.2f %14.2f %9.3f\n", bytes, iters, row.hvd_us, row.nccl_us,
                  row.hvd_us / row.nccl_us);
      std::fflush(stdout);
    }
  }
  if (hvd::rank() == 0) print_targets(rows);
  nccl_ok(ncclCommDestroy(comm), "ncclCommDestroy");
  (void)cudaStreamDestroy(stream);
  hvd_ok(hvd::shutdown(), "hvd::shutdown");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"libhvd's NCCL path against raw ncclAllReduce, from 8 B to 1 GiB", "hvd-bench-nccl"};
  std::string min_text = "8", max_text = "1G";
  int rounds = 3;
  app.add_option("--min-bytes", min_text, "Smallest message (8)");
  app.add_option("--max-bytes", max_text, "Largest message (1G)");
  app.add_option("--rounds", rounds, "Alternating rounds per size; the best counts (3)")
      ->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);
  try {
    return run(hvd::bench::parse_bytes(min_text, "--min-bytes"),
               hvd::bench::parse_bytes(max_text, "--max-bytes"), rounds);
  } catch (const hvd::Error& e) {
    std::fprintf(stderr, "hvd-bench-nccl: error: %s\n", e.what());
    return 1;
  }
}
