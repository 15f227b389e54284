// SPDX-License-Identifier: Apache-2.0
// runtime_probe's typed checks: allreduce of every dtype and op through the full runtime
// (negotiation, fusion, the chosen backend), with pre- and post-scale, at element counts 0, 1
// and a prime, and one 64 MiB tensor. Integers are checked exactly; floats against a float64
// reference computed here, within the rounding of their own type.

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "hvd/hvd.h"
#include "runtime_probe.h"

namespace {

using hvd::DataType;
using hvd::ReduceOp;

// IEEE half and bfloat16 from and to float, for the small integers and halves used here.
uint16_t to_half(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const int exp = static_cast<int>((x >> 23) & 0xff) - 127 + 15;
  if ((x & 0x7fffffffu) == 0) return static_cast<uint16_t>(sign);
  // Values here are normal halves: round the mantissa to nearest even.
  uint32_t mant = x & 0x7fffffu;
  uint32_t h = sign | (static_cast<uint32_t>(exp) << 10) | (mant >> 13);
  const uint32_t rest = mant & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;
  return static_cast<uint16_t>(h);
}
float from_half(uint16_t h) {
  const uint32_t sign = (h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  const uint32_t mant = h & 0x3ffu;
  if (exp == 0 && mant == 0) {
    float z;
    std::memcpy(&z, &sign, 4);
    return z;
  }
  const uint32_t x = sign | ((exp - 15 + 127) << 23) | (mant << 13);
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}
uint16_t to_bf16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  return static_cast<uint16_t>((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}
float from_bf16(uint16_t b) {
  const uint32_t x = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

void store(DataType dt, void* data, size_t i, double v) {
  char* p = static_cast<char*>(data) + i * hvd::dtype_size(dt);
  switch (dt) {
    case DataType::kUInt8:
      *reinterpret_cast<uint8_t*>(p) = static_cast<uint8_t>(v);
      break;
    case DataType::kInt32:
      *reinterpret_cast<int32_t*>(p) = static_cast<int32_t>(v);
      break;
    case DataType::kInt64:
      *reinterpret_cast<int64_t*>(p) = static_cast<int64_t>(v);
      break;
    case DataType::kFloat16:
      *reinterpret_cast<uint16_t*>(p) = to_half(static_cast<float>(v));
      break;
    case DataType::kBFloat16:
      *reinterpret_cast<uint16_t*>(p) = to_bf16(static_cast<float>(v));
      break;
    case DataType::kFloat32:
      *reinterpret_cast<float*>(p) = static_cast<float>(v);
      break;
    case DataType::kFloat64:
      *reinterpret_cast<double*>(p) = v;
      break;
  }
}

double load(DataType dt, const void* data, size_t i) {
  const char* p = static_cast<const char*>(data) + i * hvd::dtype_size(dt);
  switch (dt) {
    case DataType::kUInt8:
      return *reinterpret_cast<const uint8_t*>(p);
    case DataType::kInt32:
      return *reinterpret_cast<const int32_t*>(p);
    case DataType::kInt64:
      return static_cast<double>(*reinterpret_cast<const int64_t*>(p));
    case DataType::kFloat16:
      return from_half(*reinterpret_cast<const uint16_t*>(p));
    case DataType::kBFloat16:
      return from_bf16(*reinterpret_cast<const uint16_t*>(p));
    case DataType::kFloat32:
      return *reinterpret_cast<const float*>(p);
    case DataType::kFloat64:
      return *reinterpret_cast<const double*>(p);
  }
  return 0;
}

bool is_integer(DataType dt) {
  return dt == DataType::kUInt8 || dt == DataType::kInt32 || dt == DataType::kInt64;
}

// Rank r's element i: 1 or 2 for a product (2^8 still fits every type, uint8 wraps exactly),
// 1..3 otherwise, so that every sum stays exact in every type.
double input(ReduceOp op, int rank, size_t i) {
  return op == ReduceOp::kProduct ? 1 + (rank + i) % 2 : 1 + (rank + i) % 3;
}

// The float64 reference of op over every rank's scaled input, as the runtime defines it.
double reference(DataType dt, ReduceOp op, int size, size_t i, double pre, double post) {
  double acc = op == ReduceOp::kProduct ? 1 : (op == ReduceOp::kMin ? 1e300 : -1e300);
  if (op == ReduceOp::kSum || op == ReduceOp::kAverage) acc = 0;
  for (int r = 0; r < size; ++r) {
    const double x = input(op, r, i) * pre;
    if (op == ReduceOp::kSum || op == ReduceOp::kAverage) acc += x;
    if (op == ReduceOp::kProduct) acc *= x;
    if (op == ReduceOp::kMin) acc = std::min(acc, x);
    if (op == ReduceOp::kMax) acc = std::max(acc, x);
  }
  if (dt == DataType::kUInt8)
    acc = static_cast<double>(static_cast<uint8_t>(static_cast<int64_t>(acc)));
  if (op == ReduceOp::kAverage) acc = is_integer(dt) ? std::trunc(acc / size) : acc / size;
  return acc * post;
}

double tolerance(DataType dt) {
  switch (dt) {
    case DataType::kFloat16:
      return 1e-3;
    case DataType::kBFloat16:
      return 8e-3;
    case DataType::kFloat32:
      return 1e-6;
    case DataType::kFloat64:
      return 1e-12;
    default:
      return 0;
  }
}

std::string label(DataType dt, ReduceOp op, size_t n, double pre, double post) {
  return std::string(hvd::dtype_name(dt)) + "." + std::string(hvd::op_name(op)) + "." +
         std::to_string(n) + (pre != 1 || post != 1 ? ".scaled" : "");
}

}  // namespace

void allreduce_every_dtype_and_op(int rank, int size) {
  const DataType dtypes[] = {DataType::kUInt8,   DataType::kInt32,    DataType::kInt64,
                             DataType::kFloat16, DataType::kBFloat16, DataType::kFloat32,
                             DataType::kFloat64};
  const ReduceOp ops[] = {ReduceOp::kSum, ReduceOp::kAverage, ReduceOp::kMin, ReduceOp::kMax,
                          ReduceOp::kProduct};
  for (DataType dt : dtypes) {
    for (ReduceOp op : ops) {
      for (size_t n : {size_t{0}, size_t{1}, size_t{1009}}) {
        // Scale factors only where the result stays exact or a float tolerance covers it.
        const bool scaled = !is_integer(dt) && n == 1009;
        const double pre = scaled ? 0.5 : 1.0, post = scaled ? 2.0 : 1.0;
        std::vector<char> buf(n * hvd::dtype_size(dt));
        for (size_t i = 0; i < n; ++i) store(dt, buf.data(), i, input(op, rank, i));
        const std::string name = label(dt, op, n, pre, post);
        const hvd::TensorView t{buf.data(), dt, {static_cast<int64_t>(n)}, {}};
        must(hvd::allreduce_async(name, t, t, op, pre, post).wait(), name);
        size_t wrong = 0;
        for (size_t i = 0; i < n; ++i) {
          const double want = reference(dt, op, size, i, pre, post);
          const double got = load(dt, buf.data(), i);
          if (std::fabs(got - want) > tolerance(dt) * std::max(1.0, std::fabs(want))) ++wrong;
        }
        expect(wrong == 0, name + ": " + std::to_string(wrong) + " wrong elements");
      }
    }
  }
}

void allreduce_64_mib(int rank, int size) {
  const size_t n = (size_t{64} << 20) / sizeof(float);
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<float>((rank + i) % 7);
  const hvd::TensorView t{v.data(), DataType::kFloat32, {static_cast<int64_t>(n)}, {}};
  must(hvd::allreduce_async("f32.64MiB", t, t, ReduceOp::kSum).wait(), "f32.64MiB");
  size_t wrong = 0;
  for (size_t i = 0; i < n; ++i) {
    double want = 0;
    for (int r = 0; r < size; ++r) want += static_cast<double>((r + i) % 7);
    if (v[i] != static_cast<float>(want)) ++wrong;
  }
  expect(wrong == 0, "64 MiB float32 sum: " + std::to_string(wrong) + " wrong elements");
}
