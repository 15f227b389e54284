// SPDX-License-Identifier: Apache-2.0
#include "common/reduce_kernels.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "hvd/error.h"

namespace hvd {
namespace {

// Elements per fixed-width block. GCC's -O2 cost model ("very cheap") vectorizes only loops
// whose trip count is a known multiple of the vector width, so the hot loops run over
// blocks of kBlock elements and leave a short scalar tail.
constexpr size_t kBlock = 16;

uint32_t bits_of(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  return u;
}

float float_of(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof(f));
  return f;
}

// Branch-free binary16 conversions (after Marat Dukhan's FP16 library). They use float
// arithmetic in the default rounding mode to do the rounding, which gives round-to-nearest-
// even, correct subnormals, infinities and quiet NaNs.
inline float h2f(uint16_t h) {
  const uint32_t w = static_cast<uint32_t>(h) << 16;
  const uint32_t sign = w & 0x80000000u;
  const uint32_t two_w = w + w;
  const float normalized = float_of((two_w >> 4) + (0xE0u << 23)) * 0x1.0p-112f;
  const float denormalized = float_of((two_w >> 17) | (126u << 23)) - 0.5f;
  const uint32_t magnitude = two_w < (1u << 27) ? bits_of(denormalized) : bits_of(normalized);
  return float_of(sign | magnitude);
}

inline uint16_t f2h(float f) {
  float base = (std::fabs(f) * 0x1.0p+112f) * 0x1.0p-110f;
  const uint32_t w = bits_of(f);
  const uint32_t shl1_w = w + w;
  const uint32_t sign = w & 0x80000000u;
  uint32_t bias = shl1_w & 0xFF000000u;
  if (bias < 0x71000000u) bias = 0x71000000u;
  base = float_of((bias >> 1) + 0x07800000u) + base;
  const uint32_t bits = bits_of(base);
  const uint32_t exp_bits = (bits >> 13) & 0x00007C00u;
  const uint32_t mantissa_bits = bits & 0x00000FFFu;
  const uint32_t nonsign = exp_bits + mantissa_bits;
  return static_cast<uint16_t>((sign >> 16) | (shl1_w > 0xFF000000u ? 0x7E00u : nonsign));
}

inline float b2f(uint16_t b) { return float_of(static_cast<uint32_t>(b) << 16); }

inline uint16_t f2b(float f) {
  const uint32_t u = bits_of(f);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<uint16_t>((u >> 16) | 0x0040u);
  return static_cast<uint16_t>((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}

// The binary operations. Integer sums and products go through an unsigned type, where
// wrap-around is defined: at least unsigned int, because a narrower unsigned type is promoted
// to (signed) int first, and 65535 * 65535 overflows int (UBSan caught it for int16 products).
template <typename T, bool = std::is_integral_v<T>>
struct WideOf {
  using type = T;
};
template <typename T>
struct WideOf<T, true> {
  using type = decltype(std::make_unsigned_t<T>{} + 0u);
};
template <typename T>
using Wide = typename WideOf<T>::type;

struct Sum {
  template <typename T>
  T operator()(T a, T b) const {
    return static_cast<T>(static_cast<Wide<T>>(a) + static_cast<Wide<T>>(b));
  }
};
struct Product {
  template <typename T>
  T operator()(T a, T b) const {
    return static_cast<T>(static_cast<Wide<T>>(a) * static_cast<Wide<T>>(b));
  }
};
struct Min {
  template <typename T>
  T operator()(T a, T b) const {
    return b < a ? b : a;
  }
};
struct Max {
  template <typename T>
  T operator()(T a, T b) const {
    return a < b ? b : a;
  }
};

template <typename T, typename Op>
void apply(T* __restrict dst, const T* __restrict src, size_t n, Op op) {
  size_t i = 0;
  for (; i + kBlock <= n; i += kBlock) {
    for (size_t j = 0; j < kBlock; ++j) dst[i + j] = op(dst[i + j], src[i + j]);
  }
  for (; i < n; ++i) dst[i] = op(dst[i], src[i]);
}

// 16-bit floating types: widen to float, combine, round back.
template <float (*kToFloat)(uint16_t), uint16_t (*kFromFloat)(float), typename Op>
void apply16(uint16_t* __restrict dst, const uint16_t* __restrict src, size_t n, Op op) {
  size_t i = 0;
  for (; i + kBlock <= n; i += kBlock) {
    for (size_t j = 0; j < kBlock; ++j) {
      dst[i + j] = kFromFloat(op(kToFloat(dst[i + j]), kToFloat(src[i + j])));
    }
  }
  for (; i < n; ++i) dst[i] = kFromFloat(op(kToFloat(dst[i]), kToFloat(src[i])));
}

// Calls fn with the functor for op (kAverage reduces like kSum).
template <typename Fn>
void with_op(ReduceOp op, Fn&& fn) {
  switch (op) {
    case ReduceOp::kSum:
    case ReduceOp::kAverage:
      return fn(Sum{});
    case ReduceOp::kMin:
      return fn(Min{});
    case ReduceOp::kMax:
      return fn(Max{});
    case ReduceOp::kProduct:
      return fn(Product{});
    case ReduceOp::kAdasum:  // not element-wise: backends/adasum
      break;
  }
  HVD_CHECK(false, "unknown ReduceOp ", static_cast<int>(op));
}

template <typename T>
void reduce_typed(void* dst, const void* src, size_t n, ReduceOp op) {
  with_op(op, [&](auto f) { apply(static_cast<T*>(dst), static_cast<const T*>(src), n, f); });
}

template <float (*kToFloat)(uint16_t), uint16_t (*kFromFloat)(float)>
void reduce16(void* dst, const void* src, size_t n, ReduceOp op) {
  with_op(op, [&](auto f) {
    apply16<kToFloat, kFromFloat>(static_cast<uint16_t*>(dst), static_cast<const uint16_t*>(src), n,
                                  f);
  });
}

template <typename T>
void scale_float(void* data, size_t n, T factor) {
  T* d = static_cast<T*>(data);
  size_t i = 0;
  for (; i + kBlock <= n; i += kBlock) {
    for (size_t j = 0; j < kBlock; ++j) d[i + j] = d[i + j] * factor;
  }
  for (; i < n; ++i) d[i] = d[i] * factor;
}

template <float (*kToFloat)(uint16_t), uint16_t (*kFromFloat)(float)>
void scale16(void* data, size_t n, float factor) {
  auto* d = static_cast<uint16_t*>(data);
  for (size_t i = 0; i < n; ++i) d[i] = kFromFloat(kToFloat(d[i]) * factor);
}

template <typename T>
void scale_int(void* data, size_t n, double factor) {
  constexpr double kLo = static_cast<double>(std::numeric_limits<T>::min());
  constexpr double kHi = static_cast<double>(std::numeric_limits<T>::max());
  T* d = static_cast<T*>(data);
  for (size_t i = 0; i < n; ++i) {
    const double x = static_cast<double>(d[i]) * factor;
    if (x != x) {
      d[i] = 0;
    } else if (x <= kLo) {
      d[i] = std::numeric_limits<T>::min();
    } else if (x >= kHi) {
      d[i] = std::numeric_limits<T>::max();
    } else {
      d[i] = static_cast<T>(x);  // truncates toward zero
    }
  }
}

template <typename T>
void divide_int(void* data, size_t n, size_t divisor) {
  // Divide in 64 bits so that a divisor wider than T stays exact.
  using W = std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>;
  const W div = static_cast<W>(divisor);
  T* d = static_cast<T*>(data);
  for (size_t i = 0; i < n; ++i) d[i] = static_cast<T>(static_cast<W>(d[i]) / div);
}

}  // namespace

float half_to_float(uint16_t h) { return h2f(h); }
uint16_t float_to_half(float f) { return f2h(f); }
float bfloat16_to_float(uint16_t b) { return b2f(b); }
uint16_t float_to_bfloat16(float f) { return f2b(f); }

void reduce_into(void* dst, const void* src, size_t count, DataType dtype, ReduceOp op) {
  if (count == 0) return;
  switch (dtype) {
    case DataType::kUInt8:
      return reduce_typed<uint8_t>(dst, src, count, op);
    case DataType::kInt8:
      return reduce_typed<int8_t>(dst, src, count, op);
    case DataType::kInt16:
      return reduce_typed<int16_t>(dst, src, count, op);
    case DataType::kInt32:
      return reduce_typed<int32_t>(dst, src, count, op);
    case DataType::kInt64:
      return reduce_typed<int64_t>(dst, src, count, op);
    case DataType::kFloat16:
      return reduce16<h2f, f2h>(dst, src, count, op);
    case DataType::kBFloat16:
      return reduce16<b2f, f2b>(dst, src, count, op);
    case DataType::kFloat32:
      return reduce_typed<float>(dst, src, count, op);
    case DataType::kFloat64:
      return reduce_typed<double>(dst, src, count, op);
  }
  HVD_CHECK(false, "unknown DataType ", static_cast<int>(dtype));
}

void scale(void* data, size_t count, DataType dtype, double factor) {
  if (count == 0) return;
  switch (dtype) {
    case DataType::kUInt8:
      return scale_int<uint8_t>(data, count, factor);
    case DataType::kInt8:
      return scale_int<int8_t>(data, count, factor);
    case DataType::kInt16:
      return scale_int<int16_t>(data, count, factor);
    case DataType::kInt32:
      return scale_int<int32_t>(data, count, factor);
    case DataType::kInt64:
      return scale_int<int64_t>(data, count, factor);
    case DataType::kFloat16:
      return scale16<h2f, f2h>(data, count, static_cast<float>(factor));
    case DataType::kBFloat16:
      return scale16<b2f, f2b>(data, count, static_cast<float>(factor));
    case DataType::kFloat32:
      return scale_float<float>(data, count, static_cast<float>(factor));
    case DataType::kFloat64:
      return scale_float<double>(data, count, factor);
  }
  HVD_CHECK(false, "unknown DataType ", static_cast<int>(dtype));
}

void divide(void* data, size_t count, DataType dtype, size_t divisor) {
  HVD_CHECK(divisor > 0, "divide by zero");
  if (count == 0 || divisor == 1) return;
  switch (dtype) {
    case DataType::kUInt8:
      return divide_int<uint8_t>(data, count, divisor);
    case DataType::kInt8:
      return divide_int<int8_t>(data, count, divisor);
    case DataType::kInt16:
      return divide_int<int16_t>(data, count, divisor);
    case DataType::kInt32:
      return divide_int<int32_t>(data, count, divisor);
    case DataType::kInt64:
      return divide_int<int64_t>(data, count, divisor);
    default:
      return scale(data, count, dtype, 1.0 / static_cast<double>(divisor));
  }
}

}  // namespace hvd
