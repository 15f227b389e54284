// SPDX-License-Identifier: Apache-2.0
#include "common/reduce_kernels.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "hvd/error.h"
#include "unit/runtime/common/typed_data.h"

using hvd::DataType;
using hvd::ReduceOp;
namespace test = hvd::test;

namespace {

bool is_nan_half(uint16_t h) { return (h & 0x7C00) == 0x7C00 && (h & 0x03FF) != 0; }
bool is_nan_bf16(uint16_t b) { return (b & 0x7F80) == 0x7F80 && (b & 0x007F) != 0; }

float next_up(float f) { return std::nextafter(f, std::numeric_limits<float>::infinity()); }

// Reduces rank 1's input into rank 0's (two "ranks", so that every op sees two operands) and
// checks against the float64 / exact-integer reference; 37 elements cover the vectorized
// blocks and the scalar tail.
std::string check_pair(DataType dt, ReduceOp op, size_t count) {
  std::vector<char> dst = test::make_input(dt, op, 0, count);
  const std::vector<char> src = test::make_input(dt, op, 1, count);
  hvd::reduce_into(dst.data(), src.data(), count, dt, op);
  // kAverage reduces like kSum: compare against the sum.
  const ReduceOp as = op == ReduceOp::kAverage ? ReduceOp::kSum : op;
  return test::first_mismatch(dt, dst.data(), count,
                              [&](size_t i) { return test::expected_value(dt, as, 2, i); });
}

}  // namespace

TEST_CASE("reduce kernels: float16 round-trips every value and keeps NaN") {
  for (uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
    const auto h = static_cast<uint16_t>(bits);
    const float f = hvd::half_to_float(h);
    if (is_nan_half(h)) {
      CHECK(std::isnan(f));
      CHECK(is_nan_half(hvd::float_to_half(f)));
    } else if (hvd::float_to_half(f) != h) {
      FAIL("float16 ", bits, " -> ", f, " -> ", hvd::float_to_half(f));
    }
  }
  CHECK(hvd::half_to_float(0x3C00) == 1.0f);
  CHECK(hvd::half_to_float(0x0001) == std::ldexp(1.0f, -24));  // smallest subnormal
  CHECK(hvd::half_to_float(0x7BFF) == 65504.0f);
}

TEST_CASE("reduce kernels: float to float16 rounds to nearest even") {
  const float ulp1 = std::ldexp(1.0f, -10);                       // float16 spacing at 1
  CHECK(hvd::float_to_half(1.0f + ulp1 / 2) == 0x3C00);           // tie, to even (down)
  CHECK(hvd::float_to_half(1.0f + 3 * ulp1 / 2) == 0x3C02);       // tie, to even (up)
  CHECK(hvd::float_to_half(next_up(1.0f + ulp1 / 2)) == 0x3C01);  // just above the tie
  CHECK(hvd::float_to_half(65519.0f) == 0x7BFF);                  // below the overflow tie
  CHECK(hvd::float_to_half(65520.0f) == 0x7C00);                  // overflows to infinity
  CHECK(hvd::float_to_half(-1e9f) == 0xFC00);
  CHECK(hvd::float_to_half(std::ldexp(1.0f, -25)) == 0x0000);  // tie to the even zero
  CHECK(hvd::float_to_half(std::ldexp(3.0f, -25)) == 0x0002);  // tie between 1 and 2
  CHECK(hvd::float_to_half(-0.0f) == 0x8000);
}

TEST_CASE("reduce kernels: bfloat16 round-trips every value and rounds to nearest even") {
  for (uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
    const auto b = static_cast<uint16_t>(bits);
    const float f = hvd::bfloat16_to_float(b);
    if (is_nan_bf16(b)) {
      CHECK(is_nan_bf16(hvd::float_to_bfloat16(f)));
    } else if (hvd::float_to_bfloat16(f) != b) {
      FAIL("bfloat16 ", bits, " -> ", f, " -> ", hvd::float_to_bfloat16(f));
    }
  }
  const float ulp1 = std::ldexp(1.0f, -7);
  CHECK(hvd::float_to_bfloat16(1.0f + ulp1 / 2) == 0x3F80);
  CHECK(hvd::float_to_bfloat16(1.0f + 3 * ulp1 / 2) == 0x3F82);
  CHECK(hvd::float_to_bfloat16(next_up(1.0f + ulp1 / 2)) == 0x3F81);
  CHECK(hvd::float_to_bfloat16(std::numeric_limits<float>::max()) == 0x7F80);  // to infinity
  CHECK(is_nan_bf16(hvd::float_to_bfloat16(std::numeric_limits<float>::quiet_NaN())));
}

TEST_CASE("reduce kernels: every dtype and op against a reference") {
  for (const DataType dt : test::kAllDtypes) {
    for (const ReduceOp op : test::kAllOps) {
      for (const size_t count : {size_t{0}, size_t{1}, size_t{15}, size_t{16}, size_t{37}}) {
        CAPTURE(dtype_name(dt));
        CAPTURE(op_name(op));
        CAPTURE(count);
        CHECK(check_pair(dt, op, count) == "");
      }
    }
  }
}

TEST_CASE("reduce kernels: integer sums and products wrap instead of overflowing") {
  std::vector<int32_t> a = {std::numeric_limits<int32_t>::max(), -7};
  const std::vector<int32_t> b = {1, 3};
  hvd::reduce_into(a.data(), b.data(), 2, DataType::kInt32, ReduceOp::kSum);
  CHECK(a[0] == std::numeric_limits<int32_t>::min());
  CHECK(a[1] == -4);
  std::vector<int64_t> c = {int64_t{1} << 62, -3};
  const std::vector<int64_t> d = {4, 5};
  hvd::reduce_into(c.data(), d.data(), 2, DataType::kInt64, ReduceOp::kProduct);
  CHECK(c[0] == 0);
  CHECK(c[1] == -15);
  std::vector<uint8_t> e = {200, 16};
  const std::vector<uint8_t> f = {100, 17};
  hvd::reduce_into(e.data(), f.data(), 2, DataType::kUInt8, ReduceOp::kSum);
  CHECK(e == std::vector<uint8_t>{44, 33});
  hvd::reduce_into(e.data(), f.data(), 2, DataType::kUInt8, ReduceOp::kProduct);
  CHECK(e ==
        std::vector<uint8_t>{static_cast<uint8_t>(4400 % 256), static_cast<uint8_t>(561 % 256)});
}

TEST_CASE("reduce kernels: int8 and int16 wrap as their types do, and divide truncates") {
  std::vector<int8_t> a = {127, -128, -7, 100};
  const std::vector<int8_t> b = {1, -1, 3, 100};
  hvd::reduce_into(a.data(), b.data(), 4, DataType::kInt8, ReduceOp::kSum);
  CHECK(a == std::vector<int8_t>{-128, 127, -4, -56});
  std::vector<int8_t> m = {-3, 5};
  const std::vector<int8_t> n = {2, -9};
  hvd::reduce_into(m.data(), n.data(), 2, DataType::kInt8, ReduceOp::kMin);
  CHECK(m == std::vector<int8_t>{-3, -9});
  std::vector<int16_t> c = {32767, 300, -5};
  const std::vector<int16_t> d = {1, 300, 7};
  hvd::reduce_into(c.data(), d.data(), 3, DataType::kInt16, ReduceOp::kProduct);
  CHECK(c == std::vector<int16_t>{32767, static_cast<int16_t>(90000 - 65536 * 1), -35});
  hvd::reduce_into(c.data(), d.data(), 3, DataType::kInt16, ReduceOp::kMax);
  CHECK(c == std::vector<int16_t>{32767, 24464, 7});
  std::vector<int16_t> e = {-7, 9};
  hvd::divide(e.data(), e.size(), DataType::kInt16, 2);
  CHECK(e == std::vector<int16_t>{-3, 4});
  CHECK(hvd::dtype_size(DataType::kInt8) == 1);
  CHECK(hvd::dtype_size(DataType::kInt16) == 2);
  CHECK(hvd::dtype_name(DataType::kInt16) == "int16");
}

TEST_CASE("reduce kernels: scale for every dtype") {
  for (const DataType dt : test::kAllDtypes) {
    CAPTURE(dtype_name(dt));
    std::vector<char> buf = test::make_input(dt, ReduceOp::kSum, 3, 37);
    hvd::scale(buf.data(), 37, dt, 0.5);
    CHECK(test::first_mismatch(dt, buf.data(), 37, [&](size_t i) {
            const double v = test::input_value(dt, ReduceOp::kSum, 3, i) * 0.5;
            return test::is_float(dt) ? v : std::trunc(v);
          }) == "");
  }
  SUBCASE("integers truncate toward zero and saturate") {
    std::vector<int32_t> v = {7, -7, 2000000000, -2000000000};
    hvd::scale(v.data(), v.size(), DataType::kInt32, 1.5);
    CHECK(v == std::vector<int32_t>{10, -10, std::numeric_limits<int32_t>::max(),
                                    std::numeric_limits<int32_t>::min()});
    std::vector<uint8_t> u = {200, 3};
    hvd::scale(u.data(), u.size(), DataType::kUInt8, -1.0);
    CHECK(u == std::vector<uint8_t>{0, 0});
  }
  SUBCASE("float16 rounds the product to nearest even") {
    std::vector<uint16_t> h = {hvd::float_to_half(1.0f)};
    hvd::scale(h.data(), 1, DataType::kFloat16, 1.0 + std::ldexp(1.0, -11));  // a tie
    CHECK(h[0] == 0x3C00);
  }
}

TEST_CASE("reduce kernels: divide is exact for integers") {
  std::vector<int64_t> v = {(int64_t{1} << 62) + 3, -7, 7, 0};
  hvd::divide(v.data(), v.size(), DataType::kInt64, 3);
  CHECK(v == std::vector<int64_t>{((int64_t{1} << 62) + 3) / 3, -2, 2, 0});
  std::vector<uint8_t> u = {255, 2};
  hvd::divide(u.data(), u.size(), DataType::kUInt8, 300);
  CHECK(u == std::vector<uint8_t>{0, 0});
  std::vector<double> d = {1.0, -3.0};
  hvd::divide(d.data(), d.size(), DataType::kFloat64, 4);
  CHECK(d == std::vector<double>{0.25, -0.75});
  CHECK_THROWS_AS(hvd::divide(d.data(), d.size(), DataType::kFloat64, 0), hvd::InternalError);
}
