// SPDX-License-Identifier: Apache-2.0
#include "backends/adasum/kernels.h"

#include <cstdint>

#include "common/reduce_kernels.h"
#include "hvd/error.h"

namespace hvd::backends::adasum {
namespace {

// Horovod's threshold below which a squared norm counts as zero (its coefficient stays 1).
constexpr double kTinyNormSq = 1e-8;

double load(const void* p, size_t i, DataType dtype) {
  switch (dtype) {
    case DataType::kFloat16:
      return half_to_float(static_cast<const uint16_t*>(p)[i]);
    case DataType::kFloat32:
      return static_cast<const float*>(p)[i];
    default:
      return static_cast<const double*>(p)[i];
  }
}

template <typename T>
DotAndNorms sums_of(const T* a, const T* b, size_t count) {
  DotAndNorms s;
  for (size_t i = 0; i < count; ++i) {
    const auto x = static_cast<double>(a[i]);
    const auto y = static_cast<double>(b[i]);
    s.dot += x * y;
    s.a_sq += x * x;
    s.b_sq += y * y;
  }
  return s;
}

template <typename T>
void combine(T* a, double a_coeff, const T* b, double b_coeff, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    a[i] = static_cast<T>(a_coeff * static_cast<double>(a[i]) +
                          b_coeff * static_cast<double>(b[i]));
  }
}

}  // namespace

bool supports_dtype(DataType dtype) {
  return dtype == DataType::kFloat16 || dtype == DataType::kFloat32 ||
         dtype == DataType::kFloat64;
}

DotAndNorms dot_and_norms(const void* a, const void* b, size_t count, DataType dtype) {
  HVD_CHECK(supports_dtype(dtype), "Adasum of ", dtype_name(dtype));
  if (dtype == DataType::kFloat32) {
    return sums_of(static_cast<const float*>(a), static_cast<const float*>(b), count);
  }
  if (dtype == DataType::kFloat64) {
    return sums_of(static_cast<const double*>(a), static_cast<const double*>(b), count);
  }
  DotAndNorms s;
  for (size_t i = 0; i < count; ++i) {
    const double x = load(a, i, dtype);
    const double y = load(b, i, dtype);
    s.dot += x * y;
    s.a_sq += x * x;
    s.b_sq += y * y;
  }
  return s;
}

Coefficients coefficients(const DotAndNorms& sums) {
  Coefficients c;
  if (sums.a_sq >= kTinyNormSq) c.a = 1.0 - sums.dot / sums.a_sq * 0.5;
  if (sums.b_sq >= kTinyNormSq) c.b = 1.0 - sums.dot / sums.b_sq * 0.5;
  return c;
}

void scaled_add(void* a, double a_coeff, const void* b, double b_coeff, size_t count,
                DataType dtype) {
  HVD_CHECK(supports_dtype(dtype), "Adasum of ", dtype_name(dtype));
  if (dtype == DataType::kFloat32) {
    return combine(static_cast<float*>(a), a_coeff, static_cast<const float*>(b), b_coeff, count);
  }
  if (dtype == DataType::kFloat64) {
    return combine(static_cast<double*>(a), a_coeff, static_cast<const double*>(b), b_coeff,
                   count);
  }
  auto* out = static_cast<uint16_t*>(a);
  for (size_t i = 0; i < count; ++i) {
    const double v = a_coeff * load(a, i, dtype) + b_coeff * load(b, i, dtype);
    out[i] = float_to_half(static_cast<float>(v));
  }
}

}  // namespace hvd::backends::adasum
