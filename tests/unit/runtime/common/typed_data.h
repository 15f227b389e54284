// SPDX-License-Identifier: Apache-2.0
#pragma once
// Typed test data with a float64 (or exact integer) reference, for the reduction kernels and
// the ring collectives.
//
// Inputs are chosen so that every partial result is exactly representable in every dtype
// (quarters in [-4, 4] for sums and extrema, powers of two for products), which makes the
// expected value independent of reduction order; only kAverage's final division rounds.

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "common/reduce_kernels.h"
#include "hvd/str_cat.h"
#include "hvd/tensor.h"

namespace hvd::test {

inline constexpr DataType kAllDtypes[] = {
    DataType::kUInt8,    DataType::kInt8,    DataType::kInt16,   DataType::kInt32,
    DataType::kInt64,    DataType::kFloat16, DataType::kBFloat16, DataType::kFloat32,
    DataType::kFloat64};
inline constexpr ReduceOp kAllOps[] = {ReduceOp::kSum, ReduceOp::kAverage, ReduceOp::kMin,
                                       ReduceOp::kMax, ReduceOp::kProduct};

inline bool is_float(DataType dt) {
  return dt == DataType::kFloat16 || dt == DataType::kBFloat16 || dt == DataType::kFloat32 ||
         dt == DataType::kFloat64;
}

/// Element i of a typed buffer, as a double.
inline double get(DataType dt, const void* data, size_t i) {
  const char* p = static_cast<const char*>(data) + i * dtype_size(dt);
  uint16_t h = 0;
  switch (dt) {
    case DataType::kUInt8:
      return *reinterpret_cast<const uint8_t*>(p);
    case DataType::kInt8:
      return *reinterpret_cast<const int8_t*>(p);
    case DataType::kInt16:
      return *reinterpret_cast<const int16_t*>(p);
    case DataType::kInt32:
      return *reinterpret_cast<const int32_t*>(p);
    case DataType::kInt64:
      return static_cast<double>(*reinterpret_cast<const int64_t*>(p));
    case DataType::kFloat16:
      std::memcpy(&h, p, 2);
      return half_to_float(h);
    case DataType::kBFloat16:
      std::memcpy(&h, p, 2);
      return bfloat16_to_float(h);
    case DataType::kFloat32:
      return *reinterpret_cast<const float*>(p);
    case DataType::kFloat64:
      return *reinterpret_cast<const double*>(p);
  }
  return 0;
}

/// Stores v (rounded to nearest-even for floats, wrapped modulo 2^bits for integers).
inline void put(DataType dt, void* data, size_t i, double v) {
  char* p = static_cast<char*>(data) + i * dtype_size(dt);
  const auto wrapped = static_cast<int64_t>(v);
  uint16_t h = 0;
  switch (dt) {
    case DataType::kUInt8:
      *reinterpret_cast<uint8_t*>(p) = static_cast<uint8_t>(wrapped);
      return;
    case DataType::kInt8:
      *reinterpret_cast<int8_t*>(p) = static_cast<int8_t>(static_cast<uint8_t>(wrapped));
      return;
    case DataType::kInt16:
      *reinterpret_cast<int16_t*>(p) = static_cast<int16_t>(static_cast<uint16_t>(wrapped));
      return;
    case DataType::kInt32:
      *reinterpret_cast<int32_t*>(p) = static_cast<int32_t>(static_cast<uint32_t>(wrapped));
      return;
    case DataType::kInt64:
      *reinterpret_cast<int64_t*>(p) = wrapped;
      return;
    case DataType::kFloat16:
      h = float_to_half(static_cast<float>(v));
      std::memcpy(p, &h, 2);
      return;
    case DataType::kBFloat16:
      h = float_to_bfloat16(static_cast<float>(v));
      std::memcpy(p, &h, 2);
      return;
    case DataType::kFloat32:
      *reinterpret_cast<float*>(p) = static_cast<float>(v);
      return;
    case DataType::kFloat64:
      *reinterpret_cast<double*>(p) = v;
      return;
  }
}

/// Element i of rank r's input for op (exactly representable in dt).
inline double input_value(DataType dt, ReduceOp op, int r, size_t i) {
  const auto k = static_cast<int64_t>((static_cast<size_t>(r) * 7 + i * 3) % 11);
  if (op == ReduceOp::kProduct) {
    static constexpr double kFloats[] = {0.5, 1, 2, -1, 1, -0.5, 2, 1, 0.5, -2, 1};
    static constexpr double kInts[] = {1, 2, 1, -1, 3, 1, -2, 1, 1, 2, -1};
    if (is_float(dt)) return kFloats[k];
    return dt == DataType::kUInt8 ? std::fabs(kInts[k]) : kInts[k];
  }
  if (dt == DataType::kUInt8) return static_cast<double>(k);
  if (!is_float(dt)) return static_cast<double>(k - 5);
  return static_cast<double>((static_cast<size_t>(r) * 7 + i * 3) % 33) / 4.0 - 4.0;
}

inline std::vector<char> make_input(DataType dt, ReduceOp op, int r, size_t count) {
  std::vector<char> buf(count * dtype_size(dt));
  for (size_t i = 0; i < count; ++i) put(dt, buf.data(), i, input_value(dt, op, r, i));
  return buf;
}

/// The reduction of element i over n ranks' inputs, before rounding to dt (integers are
/// wrapped as the type wraps).
inline double expected_value(DataType dt, ReduceOp op, int n, size_t i) {
  double acc = input_value(dt, op, 0, i);
  for (int r = 1; r < n; ++r) {
    const double v = input_value(dt, op, r, i);
    if (op == ReduceOp::kMin)
      acc = std::fmin(acc, v);
    else if (op == ReduceOp::kMax)
      acc = std::fmax(acc, v);
    else if (op == ReduceOp::kProduct)
      acc *= v;
    else
      acc += v;
  }
  if (!is_float(dt)) {
    std::vector<char> one(dtype_size(dt));
    put(dt, one.data(), 0, acc);
    acc = get(dt, one.data(), 0);
    if (op == ReduceOp::kAverage) acc = std::trunc(acc / n);
    return acc;
  }
  return op == ReduceOp::kAverage ? acc / n : acc;
}

/// Relative tolerance for a float dtype after one final rounding (exact for integers).
inline double tolerance(DataType dt) {
  switch (dt) {
    case DataType::kFloat16:
      return 4.0 / 1024;
    case DataType::kBFloat16:
      return 4.0 / 128;
    case DataType::kFloat32:
      return 4.0 / (1 << 23);
    case DataType::kFloat64:
      return 4.0 / (double{1 << 30} * (1 << 22));
    default:
      return 0;
  }
}

/// "" when every element i of buf equals want(i) (within dtype tolerance), else the first
/// difference.
template <typename Want>
std::string first_mismatch(DataType dt, const void* buf, size_t count, Want&& want) {
  const double tol = tolerance(dt);
  for (size_t i = 0; i < count; ++i) {
    const double got = get(dt, buf, i);
    const double w = want(i);
    if (std::fabs(got - w) > tol * std::fmax(1.0, std::fabs(w))) {
      return str_cat(dtype_name(dt), " element ", i, " of ", count, ": got ", got, ", want ", w);
    }
  }
  return "";
}

}  // namespace hvd::test
