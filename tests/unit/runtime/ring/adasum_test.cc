// SPDX-License-Identifier: Apache-2.0
// Horovod's Adasum (backends/adasum/vhdd.h) over the ring backend, on both real transports, 1 to
// 8 rank threads, float16/32/64, fused buffers of several tensors (empty ones, ones shorter
// than the rank count, ones where a rank gives only zeros). Every rank's result is compared with
// the formula computed directly in double from all ranks' inputs, in Horovod's tree order:
// pairs (0,1), (2,3), ..., then pairs of pairs; and the ranks' results must agree bit for bit.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "backends/adasum/kernels.h"
#include "backends/adasum/vhdd.h"
#include "backends/ring/ring_backend.h"
#include "helpers/adasum_reference.h"
#include "hvd/error.h"
#include "hvd/str_cat.h"
#include "unit/runtime/common/typed_data.h"
#include "unit/runtime/ring/ring_world.h"

using hvd::BufferView;
using hvd::DataType;
using hvd::str_cat;
using hvd::test::TransportKind;
namespace test = hvd::test;
namespace ring = hvd::backends::ring;
namespace adasum = hvd::backends::adasum;

namespace {

// The RingBackend owns its transport; the world owns the test's: this one forwards to it.
class ForwardingTransport final : public ring::Transport {
 public:
  explicit ForwardingTransport(ring::Transport& to) : to_(to) {}
  int rank() const override { return to_.rank(); }
  int size() const override { return to_.size(); }
  std::chrono::milliseconds timeout() const override { return to_.timeout(); }
  void send_recv(int to, ring::PieceSpan send, int from, ring::PieceSpan recv) override {
    to_.send_recv(to, send, from, recv);
  }
  void send_recv_reduce(int to, ring::PieceSpan send, int from, ring::PieceSpan acc,
                        DataType dtype, hvd::ReduceOp op) override {
    to_.send_recv_reduce(to, send, from, acc, dtype, op);
  }

 private:
  ring::Transport& to_;
};

constexpr DataType kAdasumDtypes[] = {DataType::kFloat16, DataType::kFloat32, DataType::kFloat64};

// Rank r's element i of tensor t: smooth, of mixed sign, a different direction per rank (so that
// the coefficients differ from 1), and all zeros from rank 1 in tensor 2 (a zero norm).
double input(int r, size_t t, size_t i) {
  if (t == 2 && r == 1) return 0.0;
  return std::sin(0.37 * static_cast<double>(i) + 1.3 * r + 0.11 * static_cast<double>(t)) *
         (1.0 + 0.25 * r);
}

// The reference of one tensor: every rank's input (as the dtype holds it), combined in the tree.
std::vector<double> reference(DataType dt, int n, size_t t, size_t count) {
  std::vector<std::vector<double>> level;
  for (int r = 0; r < n; ++r) {
    std::vector<char> bytes(count * hvd::dtype_size(dt));
    std::vector<double> v(count);
    for (size_t i = 0; i < count; ++i) {
      test::put(dt, bytes.data(), i, input(r, t, i));
      v[i] = test::get(dt, bytes.data(), i);
    }
    level.push_back(v);
  }
  return test::adasum_tree(level);
}

// How far a result may be from the double reference, relative to the tensor's largest value:
// each level rounds the partial results to the dtype.
double tolerance(DataType dt) {
  if (dt == DataType::kFloat64) return 1e-12;
  if (dt == DataType::kFloat32) return 1e-5;
  return 1e-2;
}

void check_against_reference(DataType dt, int n, const std::vector<size_t>& counts,
                             const std::vector<std::vector<char>>& results) {
  const size_t es = hvd::dtype_size(dt);
  for (int r = 1; r < n; ++r) {
    INFO("rank ", r, " against rank 0");
    CHECK(results[static_cast<size_t>(r)] == results[0]);
  }
  size_t at = 0;
  for (size_t t = 0; t < counts.size(); ++t) {
    const std::vector<double> want = reference(dt, n, t, counts[t]);
    double scale = 1e-30;
    for (double w : want) scale = std::max(scale, std::fabs(w));
    for (size_t i = 0; i < counts[t]; ++i) {
      const double got = test::get(dt, results[0].data() + at * es, i);
      INFO(str_cat(hvd::dtype_name(dt), " n=", n, " tensor ", t, " element ", i, ": got ", got,
                   ", want ", want[i]));
      REQUIRE(std::fabs(got - want[i]) <= tolerance(dt) * scale);
    }
    at += counts[t];
  }
}

void run_adasum(TransportKind kind, int n, DataType dt, const std::vector<size_t>& counts) {
  size_t total = 0;
  for (size_t c : counts) total += c;
  const size_t es = hvd::dtype_size(dt);
  std::vector<std::vector<char>> results(static_cast<size_t>(n));
  test::run_world(kind, n, [&](ring::Transport& t) {
    std::vector<char> data(total * es);
    size_t at = 0;
    for (size_t k = 0; k < counts.size(); ++k) {
      for (size_t i = 0; i < counts[k]; ++i) test::put(dt, data.data(), at + i, input(t.rank(), k, i));
      at += counts[k];
    }
    ring::RingBackend backend(std::make_unique<ForwardingTransport>(t), "test");
    backend.adasum(BufferView{data.data(), total, dt, {}}, counts);
    results[static_cast<size_t>(t.rank())] = data;
  });
  check_against_reference(dt, n, counts, results);
}

}  // namespace

TEST_CASE("adasum: every dtype and power-of-two rank count against the formula, both transports") {
  // Fused buffers: one tensor; several with an empty one, ones shorter than the ranks, a
  // zero-norm contribution (tensor 2), and an odd total that halves unevenly at every level.
  const std::vector<std::vector<size_t>> layouts = {
      {1}, {5}, {1000}, {3, 0, 17, 1, 4096}, {2, 1, 7}};
  for (const TransportKind kind : {TransportKind::kShm, TransportKind::kTcp}) {
    for (const int n : {1, 2, 4, 8}) {
      for (const DataType dt : kAdasumDtypes) {
        for (const std::vector<size_t>& counts : layouts) {
          INFO(test::kind_name(kind), " n=", n, " ", hvd::dtype_name(dt), " tensors ",
               counts.size(), " first ", counts[0]);
          run_adasum(kind, n, dt, counts);
        }
      }
    }
  }
}

TEST_CASE("adasum: the ring backend takes only host float16/32/64") {
  test::run_world(TransportKind::kShm, 1, [&](ring::Transport& t) {
    ring::RingBackend backend(std::make_unique<ForwardingTransport>(t), "test");
    for (const DataType dt : test::kAllDtypes) {
      CHECK(backend.supports({}, dt, hvd::ReduceOp::kAdasum) == adasum::supports_dtype(dt));
    }
    CHECK_FALSE(backend.supports({0}, DataType::kFloat32, hvd::ReduceOp::kAdasum));
  });
}

TEST_CASE("adasum: 3 and 6 ranks are refused with Horovod's rule, on every rank") {
  for (const int n : {3, 6}) {
    test::run_world(TransportKind::kShm, n, [&](ring::Transport& t) {
      ring::RingBackend backend(std::make_unique<ForwardingTransport>(t), "test");
      float x[4] = {1, 2, 3, 4};
      CHECK_THROWS_WITH_AS(backend.adasum(BufferView{x, 4, DataType::kFloat32, {}}, {4}),
                           doctest::Contains("power-of-two number of ranks"), hvd::ConfigError);
    });
  }
}

TEST_CASE("adasum kernels: a coefficient keeps 1 for a squared norm below sqrt(DBL_MIN) only, "
          "as Horovod 0.28's") {
  const adasum::Coefficients both = adasum::coefficients({2.0, 4.0, 8.0});
  CHECK(both.a == doctest::Approx(1.0 - 2.0 / 8.0));
  CHECK(both.b == doctest::Approx(1.0 - 2.0 / 16.0));
  // Vectors of float32's smallest normals (|x|^2 ~ 1e-75): combined, not summed.
  const adasum::Coefficients small = adasum::coefficients({1e-75, 2e-75, 4e-75});
  CHECK(small.a == doctest::Approx(1.0 - 1.0 / 4.0));
  CHECK(small.b == doctest::Approx(1.0 - 1.0 / 8.0));
  const double tiny = std::sqrt(std::numeric_limits<double>::min());
  const adasum::Coefficients below = adasum::coefficients({tiny / 8, tiny / 2, tiny / 4});
  CHECK(below.a == 1.0);
  CHECK(below.b == 1.0);
  const adasum::Coefficients at = adasum::coefficients({tiny / 2, tiny, tiny});
  CHECK(at.a == doctest::Approx(0.75));
}
