// SPDX-License-Identifier: Apache-2.0
#pragma once
// The element-wise arithmetic of Horovod's Adasum (vhdd.h): two partial vectors a and b of one
// tensor combine into
//     (1 - a.b / (2|a|^2)) a + (1 - a.b / (2|b|^2)) b,
// a coefficient staying 1 where its |x|^2 < sqrt(DBL_MIN) = 2^-511 (Horovod 0.28's adasum.h; an
// older Horovod's 1e-8 turned the Adasum of tiny gradients into their sum). Dot products and norms
// accumulate in double for every dtype; the combination is computed in double and rounded to
// the tensor's dtype (float16 to nearest-even).

#include <cstddef>

#include "hvd/tensor.h"

namespace hvd::backends::adasum {

/// Adasum's dtypes, as in Horovod: float16, float32 and float64.
bool supports_dtype(DataType dtype);

/// a.b, |a|^2 and |b|^2 of one tensor, or the sum of them over pieces of it.
struct DotAndNorms {
  double dot = 0;
  double a_sq = 0;
  double b_sq = 0;
};

/// The three sums over `count` elements of a and b. Only for supports_dtype().
DotAndNorms dot_and_norms(const void* a, const void* b, size_t count, DataType dtype);

/// The coefficients of a and b for a whole tensor's sums.
struct Coefficients {
  double a = 1;
  double b = 1;
};
Coefficients coefficients(const DotAndNorms& sums);

/// a[i] = a_coeff * a[i] + b_coeff * b[i] for i < count. Only for supports_dtype().
void scaled_add(void* a, double a_coeff, const void* b, double b_coeff, size_t count,
                DataType dtype);

}  // namespace hvd::backends::adasum
