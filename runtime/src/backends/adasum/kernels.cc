// SPDX-License-Identifier: Apache-2.0
#include "backends/adasum/kernels.h"

#include <cstdint>

#include "common/reduce_kernels.h"
#include "hvd/error.h"

namespace hvd::backends::adasum {
namespace {

// Horovod's threshold below which a squared norm counts as zero (its coefficient stays 1):
// sqrt(DBL_MIN), 2^-511, so that vectors of float32's smallest normal values still combine.
constexpr double kTinyNormSq = 0x1p-511;

// An element as a double and back: float16 (its bits in a uint16_t) through float, rounded to
// nearest-even on the way back.
template <typename T>
double value(T v) {
  return static_cast<double>(v);
}
template <>
double value(uint16_t bits) {
  return half_to_float(bits);
}
template <typename T>
T element(double v) {
  return static_cast<T>(v);
}
template <>
uint16_t element(double v) {
  return float_to_half(static_cast<float>(v));
}

template <typename T>
DotAndNorms sums_of(const void* a, const void* b, size_t count) {
  const T* x = static_cast<const T*>(a);
  const T* y = static_cast<const T*>(b);
  DotAndNorms s;
  for (size_t i = 0; i < count; ++i) {
    const double xi = value(x[i]);
    const double yi = value(y[i]);
    s.dot += xi * yi;
    s.a_sq += xi * xi;
    s.b_sq += yi * yi;
  }
  return s;
}

template <typename T>
void combine(void* a, double a_coeff, const void* b, double b_coeff, size_t count) {
  T* x = static_cast<T*>(a);
  const T* y = static_cast<const T*>(b);
  for (size_t i = 0; i < count; ++i) x[i] = element<T>(a_coeff * value(x[i]) + b_coeff * value(y[i]));
}

// Calls fn with a value of the element type of `dtype` (float16 as its uint16_t bits).
template <typename Fn>
auto with_element(DataType dtype, Fn&& fn) {
  HVD_CHECK(supports_dtype(dtype), "Adasum of ", dtype_name(dtype));
  if (dtype == DataType::kFloat16) return fn(uint16_t{});
  if (dtype == DataType::kFloat32) return fn(float{});
  return fn(double{});
}

}  // namespace

bool supports_dtype(DataType dtype) {
  return dtype == DataType::kFloat16 || dtype == DataType::kFloat32 ||
         dtype == DataType::kFloat64;
}

DotAndNorms dot_and_norms(const void* a, const void* b, size_t count, DataType dtype) {
  return with_element(dtype, [&](auto t) { return sums_of<decltype(t)>(a, b, count); });
}

Coefficients coefficients(const DotAndNorms& sums) {
  Coefficients c;
  if (sums.a_sq >= kTinyNormSq) c.a = 1.0 - sums.dot / sums.a_sq * 0.5;
  if (sums.b_sq >= kTinyNormSq) c.b = 1.0 - sums.dot / sums.b_sq * 0.5;
  return c;
}

void scaled_add(void* a, double a_coeff, const void* b, double b_coeff, size_t count,
                DataType dtype) {
  with_element(dtype, [&](auto t) { combine<decltype(t)>(a, a_coeff, b, b_coeff, count); });
}

}  // namespace hvd::backends::adasum
