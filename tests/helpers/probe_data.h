// SPDX-License-Identifier: Apache-2.0
#pragma once
// runtime_probe's and gpu_probe's host side: the inputs every rank can compute for every other
// rank, their encoding in each dtype, the float64 references, and the comparison (exact for
// integers, a dtype-sized tolerance for floating types). No CUDA here.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "common/reduce_kernels.h"
#include "hvd/tensor.h"

namespace probe_data {

using hvd::DataType;
using hvd::ReduceOp;

inline bool is_integer(DataType t) {
  return t == DataType::kUInt8 || t == DataType::kInt8 || t == DataType::kInt16 ||
         t == DataType::kInt32 || t == DataType::kInt64;
}

// Inputs repeat with this period, so that references for 64 MiB cost one period.
constexpr size_t kPeriod = 1009;

/// Rank r's element i for `op`: small values that every dtype (bfloat16 included) holds
/// exactly, and whose products over 8 ranks stay in uint8's range.
inline double input(int rank, size_t i, ReduceOp op) {
  const size_t k = i % kPeriod;
  switch (op) {
    case ReduceOp::kProduct:
      return ((static_cast<size_t>(rank) + k) % 3 == 0) ? 2.0 : 1.0;
    case ReduceOp::kMin:
    case ReduceOp::kMax:
      return static_cast<double>((static_cast<size_t>(rank) * 37 + k * 11) % 97);
    default:
      return static_cast<double>(rank + 1) +
             static_cast<double>(k % 13) * 0.25 * ((k % 2 == 0) ? 1.0 : 4.0);
  }
}

/// The value as `t` holds it (integers truncate toward zero, as libhvd's scale does).
inline void encode(DataType t, double v, char* at) {
  switch (t) {
    case DataType::kUInt8: {
      const auto x = static_cast<uint8_t>(v);
      std::memcpy(at, &x, 1);
      break;
    }
    case DataType::kInt8: {
      const auto x = static_cast<int8_t>(v);
      std::memcpy(at, &x, 1);
      break;
    }
    case DataType::kInt16: {
      const auto x = static_cast<int16_t>(v);
      std::memcpy(at, &x, 2);
      break;
    }
    case DataType::kInt32: {
      const auto x = static_cast<int32_t>(v);
      std::memcpy(at, &x, 4);
      break;
    }
    case DataType::kInt64: {
      const auto x = static_cast<int64_t>(v);
      std::memcpy(at, &x, 8);
      break;
    }
    case DataType::kFloat16: {
      const uint16_t x = hvd::float_to_half(static_cast<float>(v));
      std::memcpy(at, &x, 2);
      break;
    }
    case DataType::kBFloat16: {
      const uint16_t x = hvd::float_to_bfloat16(static_cast<float>(v));
      std::memcpy(at, &x, 2);
      break;
    }
    case DataType::kFloat32: {
      const auto x = static_cast<float>(v);
      std::memcpy(at, &x, 4);
      break;
    }
    case DataType::kFloat64:
      std::memcpy(at, &v, 8);
      break;
  }
}

inline double decode(DataType t, const char* at) {
  switch (t) {
    case DataType::kUInt8: {
      uint8_t x;
      std::memcpy(&x, at, 1);
      return x;
    }
    case DataType::kInt8: {
      int8_t x;
      std::memcpy(&x, at, 1);
      return x;
    }
    case DataType::kInt16: {
      int16_t x;
      std::memcpy(&x, at, 2);
      return x;
    }
    case DataType::kInt32: {
      int32_t x;
      std::memcpy(&x, at, 4);
      return x;
    }
    case DataType::kInt64: {
      int64_t x;
      std::memcpy(&x, at, 8);
      return static_cast<double>(x);
    }
    case DataType::kFloat16:
    case DataType::kBFloat16: {
      uint16_t x;
      std::memcpy(&x, at, 2);
      return t == DataType::kFloat16 ? hvd::half_to_float(x) : hvd::bfloat16_to_float(x);
    }
    case DataType::kFloat32: {
      float x;
      std::memcpy(&x, at, 4);
      return x;
    }
    case DataType::kFloat64: {
      double x;
      std::memcpy(&x, at, 8);
      return x;
    }
  }
  return 0;
}

/// Rank `rank`'s `count` inputs for `op`, encoded as `t`.
inline std::vector<char> inputs(DataType t, int rank, size_t count, ReduceOp op) {
  std::vector<char> out(count * hvd::dtype_size(t));
  std::vector<char> period(kPeriod * hvd::dtype_size(t));
  for (size_t k = 0; k < kPeriod; ++k) encode(t, input(rank, k, op), &period[k * dtype_size(t)]);
  for (size_t at = 0; at < out.size(); at += period.size()) {
    std::memcpy(&out[at], period.data(), std::min(period.size(), out.size() - at));
  }
  return out;
}

/// `v` as an 8- or 16-bit integer type holds a sum that went past its range: modulo its
/// width (libhvd's integer sums wrap); other types unchanged. 8 ranks' int8 sums do wrap.
inline double wrap(DataType t, double v) {
  const auto i = static_cast<int64_t>(v);
  if (t == DataType::kInt8) return static_cast<int8_t>(static_cast<uint8_t>(i & 0xff));
  if (t == DataType::kInt16) return static_cast<int16_t>(static_cast<uint16_t>(i & 0xffff));
  return v;
}

/// The float64 reference of allreduce over `size` ranks for one period: post * op(pre * x),
/// with kAverage as libhvd defines it (integers: truncating division of the sum).
inline std::vector<double> reference(DataType t, int size, ReduceOp op, double pre, double post) {
  std::vector<double> want(kPeriod);
  for (size_t k = 0; k < kPeriod; ++k) {
    double acc = 0;
    for (int r = 0; r < size; ++r) {
      double x = input(r, k, op) * pre;
      if (is_integer(t)) x = std::trunc(x);
      if (r == 0) {
        acc = x;
      } else if (op == ReduceOp::kMin) {
        acc = std::min(acc, x);
      } else if (op == ReduceOp::kMax) {
        acc = std::max(acc, x);
      } else if (op == ReduceOp::kProduct) {
        acc *= x;
      } else {
        acc += x;
      }
    }
    acc = wrap(t, acc);
    if (op == ReduceOp::kAverage) acc = is_integer(t) ? std::trunc(acc / size) : acc / size;
    want[k] = is_integer(t) ? std::trunc(acc * post) : acc * post;
  }
  return want;
}

/// Relative tolerance: half a unit in the last place of the dtype, a few times over (NCCL may
/// round after every step of its reduction).
inline double tolerance(DataType t) {
  switch (t) {
    case DataType::kFloat16:
      return 4e-3;
    case DataType::kBFloat16:
      return 3e-2;
    case DataType::kFloat32:
      return 1e-6;
    case DataType::kFloat64:
      return 1e-12;
    default:
      return 0;
  }
}

/// Whether `got` (count elements of `t`) matches `want` (indexed modulo its size). Prints the
/// first mismatch under `name`.
inline bool matches(const std::string& name, DataType t, const std::vector<char>& got,
                    const std::vector<double>& want) {
  const size_t n = got.size() / hvd::dtype_size(t);
  for (size_t i = 0; i < n; ++i) {
    const double g = decode(t, &got[i * hvd::dtype_size(t)]);
    const double w = want[i % want.size()];
    if (std::fabs(g - w) > tolerance(t) * std::max(1.0, std::fabs(w))) {
      std::fprintf(stderr, "FAILED %s: element %zu is %.17g, want %.17g\n", name.c_str(), i, g, w);
      return false;
    }
  }
  return true;
}

}  // namespace probe_data
