// SPDX-License-Identifier: Apache-2.0
// runtime_probe's Adasum: through libhvd's public API (and so through negotiation, fusion and
// whichever backend runs: the ring under hvdrun, MPI under mpirun), against the formula computed
// here in double from every rank's input, in Horovod's tree order. At a size that is no power of
// two, every rank gets the same usage error.

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "adasum_reference.h"
#include "runtime_probe.h"

namespace {

// Rank r's element i of tensor t (the same function on every rank, so each can compute all
// ranks' inputs).
double input(int r, int t, size_t i) {
  return std::cos(0.21 * static_cast<double>(i) * (t + 1) + 0.9 * r) * (1.0 + 0.5 * r);
}

std::vector<double> reference(int size, int t, size_t count) {
  std::vector<std::vector<double>> level;
  for (int r = 0; r < size; ++r) {
    std::vector<double> v(count);
    for (size_t i = 0; i < count; ++i) v[i] = input(r, t, i);
    level.push_back(v);
  }
  return hvd::test::adasum_tree(level);
}

}  // namespace

void allreduce_adasum(int rank, int size) {
  // Three tensors submitted together, so that they fuse into one response with three sets of
  // coefficients; the middle one shorter than the ranks.
  const std::vector<size_t> counts = {1000, 3, 257};
  std::vector<std::vector<double>> data;
  std::vector<hvd::Handle> handles;
  for (size_t t = 0; t < counts.size(); ++t) {
    data.emplace_back(counts[t]);
    for (size_t i = 0; i < counts[t]; ++i) data[t][i] = input(rank, static_cast<int>(t), i);
  }
  for (size_t t = 0; t < counts.size(); ++t) {
    const hvd::TensorView v{data[t].data(), hvd::DataType::kFloat64,
                            {static_cast<int64_t>(counts[t])}, {}};
    handles.push_back(
        hvd::allreduce_async("adasum." + std::to_string(t), v, v, hvd::ReduceOp::kAdasum));
  }
  if (size & (size - 1)) {
    for (hvd::Handle& h : handles) {
      const hvd::Status s = h.wait();
      expect(!s.ok() && s.code() == hvd::ErrorCode::kUsage &&
                 s.message().find("power-of-two number of ranks") != std::string::npos,
             "Adasum at " + std::to_string(size) + " ranks: " + s.message());
    }
    return;
  }
  for (hvd::Handle& h : handles) must(h.wait(), "adasum");
  for (size_t t = 0; t < counts.size(); ++t) {
    const std::vector<double> want = reference(size, static_cast<int>(t), counts[t]);
    double scale = 1e-30;
    for (double w : want) scale = std::max(scale, std::fabs(w));
    bool close = true;
    for (size_t i = 0; i < counts[t]; ++i) close = close && std::fabs(data[t][i] - want[i]) <= 1e-12 * scale;
    expect(close, "Adasum tensor " + std::to_string(t) + " against the formula");
  }
}
