// SPDX-License-Identifier: Apache-2.0
#pragma once
// Element-wise reduction kernels on host memory, for every DataType and ReduceOp.
//
// float16 and bfloat16 are computed in float and rounded back to nearest-even. Integer sums
// and products wrap around modulo 2^bits (they are exact; signed types behave as two's
// complement, never as undefined overflow). kAverage reduces like kSum: the division is a
// separate step (scale() or divide()), so that it happens once, after the last reduction.
// The float32/float64 loops are written in fixed-width blocks so that GCC vectorizes them
// at -O2.

#include <cstddef>
#include <cstdint>

#include "hvd/tensor.h"

namespace hvd {

/// dst[i] = dst[i] op src[i] for i < count. dst and src must not overlap. Any thread.
void reduce_into(void* dst, const void* src, size_t count, DataType dtype, ReduceOp op);

/// data[i] *= factor (Horovod's prescale/postscale). Floating types multiply in their own
/// precision (float16/bfloat16 in float) and round to nearest-even. Integer types multiply
/// in double and truncate toward zero, saturating at the type's range; int64 values beyond
/// 2^53 lose precision.
void scale(void* data, size_t count, DataType dtype, double factor);

/// The averaging step of kAverage: floating types are scaled by 1/divisor; integer types
/// are divided exactly, truncating toward zero as C++ does. divisor must be > 0.
void divide(void* data, size_t count, DataType dtype, size_t divisor);

/// IEEE binary16 <-> float. to_half rounds to nearest-even, overflows to infinity and keeps
/// NaNs NaN.
float half_to_float(uint16_t h);
uint16_t float_to_half(float f);

/// bfloat16 <-> float. to_bfloat16 rounds to nearest-even and keeps NaNs NaN.
float bfloat16_to_float(uint16_t b);
uint16_t float_to_bfloat16(float f);

}  // namespace hvd
