// SPDX-License-Identifier: Apache-2.0
#include "preflight/collective_timing.h"

#include <algorithm>
#include <chrono>
#include <vector>

#include "hvd/error.h"
#include "hvd/hvd.h"
#include "hvd/str_cat.h"

namespace hvd::preflight {
namespace {

constexpr int kWarmup = 3;
constexpr int kLatencyIterations = 30;
constexpr int kBandwidthIterations = 8;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Seconds of each of `iterations` allreduces of `floats` float32 values, after a warm-up.
std::vector<double> time_ops(int process_set, const std::string& name, size_t floats,
                             int iterations) {
  using Clock = std::chrono::steady_clock;
  std::vector<float> data(floats, 1.0f);
  TensorView view{data.data(), DataType::kFloat32, {static_cast<int64_t>(floats)}, {}};
  std::vector<double> seconds;
  for (int i = 0; i < kWarmup + iterations; ++i) {
    const Clock::time_point start = Clock::now();
    const Status status =
        allreduce_async(name, view, view, ReduceOp::kSum, 1.0, 1.0, process_set).wait();
    if (!status.ok()) throw BackendError(str_cat("allreduce ", name, ": ", status.message()));
    if (i >= kWarmup) seconds.push_back(std::chrono::duration<double>(Clock::now() - start).count());
  }
  return seconds;
}

}  // namespace

CollectiveTiming time_allreduce(int process_set, int set_size, const std::string& tag,
                                int large_bytes) {
  CollectiveTiming t;
  t.latency_us = 1e6 * median(time_ops(process_set, "preflight.lat." + tag, 2, kLatencyIterations));
  const size_t floats = static_cast<size_t>(large_bytes) / sizeof(float);
  const double seconds = median(time_ops(process_set, "preflight.bw." + tag, floats,
                                         kBandwidthIterations));
  t.bytes = static_cast<double>(floats * sizeof(float));
  // nccl-tests' busbw for allreduce: algbw x 2(n-1)/n, the bytes each link carries.
  const double factor = set_size > 1 ? 2.0 * (set_size - 1) / set_size : 1.0;
  t.busbw_gbps = t.bytes / seconds / 1e9 * factor;
  return t;
}

}  // namespace hvd::preflight
