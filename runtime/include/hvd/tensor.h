// SPDX-License-Identifier: Apache-2.0
#pragma once
// Tensor description shared by the public API and the runtime's internals.

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace hvd {

// kInt8 and kInt16 came later: they are appended so that the values of the others (in the
// negotiation's wire format and the C API's hvd_dtype) stay what they were.
enum class DataType : uint8_t {
  kUInt8,
  kInt32,
  kInt64,
  kFloat16,
  kBFloat16,
  kFloat32,
  kFloat64,
  kInt8,
  kInt16
};

/// kAverage is kSum, then one scaling by postscale / the number of ranks, integers too (in double,
/// truncated toward zero): Horovod's semantics.
/// kAdasum: Horovod's Adasum (backends/adasum/vhdd.h), host float16/32/64, power-of-two sizes.
enum class ReduceOp : uint8_t { kSum, kAverage, kMin, kMax, kProduct, kAdasum };

/// Where a tensor's memory lives: the host, or CUDA device `index`.
struct Device {
  static constexpr int kCpu = -1;
  int index = kCpu;
  bool is_cpu() const { return index == kCpu; }
  friend bool operator==(Device a, Device b) { return a.index == b.index; }
  friend bool operator!=(Device a, Device b) { return a.index != b.index; }
};

constexpr size_t dtype_size(DataType t) {
  switch (t) {
    case DataType::kUInt8:
    case DataType::kInt8:
      return 1;
    case DataType::kInt16:
    case DataType::kFloat16:
    case DataType::kBFloat16:
      return 2;
    case DataType::kInt32:
    case DataType::kFloat32:
      return 4;
    case DataType::kInt64:
    case DataType::kFloat64:
      return 8;
  }
  return 0;
}

constexpr std::string_view dtype_name(DataType t) {
  switch (t) {
    case DataType::kUInt8:
      return "uint8";
    case DataType::kInt32:
      return "int32";
    case DataType::kInt64:
      return "int64";
    case DataType::kFloat16:
      return "float16";
    case DataType::kBFloat16:
      return "bfloat16";
    case DataType::kFloat32:
      return "float32";
    case DataType::kFloat64:
      return "float64";
    case DataType::kInt8:
      return "int8";
    case DataType::kInt16:
      return "int16";
  }
  return "?";
}

constexpr std::string_view op_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum:
      return "sum";
    case ReduceOp::kAverage:
      return "average";
    case ReduceOp::kMin:
      return "min";
    case ReduceOp::kMax:
      return "max";
    case ReduceOp::kProduct:
      return "product";
    case ReduceOp::kAdasum:
      return "adasum";
  }
  return "?";
}

}  // namespace hvd
