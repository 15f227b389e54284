// SPDX-License-Identifier: Apache-2.0
#include "bench/check_pattern.h"

#include <algorithm>

namespace hvd::bench {
namespace {

// Rank r's element i. Products stay exact (at most 2^ranks); sums stay below 2^24 for any
// realistic rank count, so float32 is exact too.
double pattern(ReduceOp redop, int r, size_t i) {
  if (redop == ReduceOp::kProduct) return static_cast<double>(1 + (i + r) % 2);
  return static_cast<double>(1 + (i * 7 + static_cast<size_t>(r) * 3) % 16);
}

double reduced(ReduceOp redop, int ranks, size_t i) {
  double acc = pattern(redop, 0, i);
  for (int r = 1; r < ranks; ++r) {
    const double v = pattern(redop, r, i);
    switch (redop) {
      case ReduceOp::kMin:
        acc = std::min(acc, v);
        break;
      case ReduceOp::kMax:
        acc = std::max(acc, v);
        break;
      case ReduceOp::kProduct:
        acc *= v;
        break;
      default:
        acc += v;
        break;
    }
  }
  return acc;
}

// The value element i of `out` must hold afterwards.
double expected(Op op, ReduceOp redop, size_t count, size_t i, int ranks, int root) {
  switch (op) {
    case Op::kAllreduce:
      return reduced(redop, ranks, i);
    case Op::kBroadcast:
      return pattern(redop, root, i);
    case Op::kAllgather:
      return pattern(redop, static_cast<int>(i / count), i % count);
  }
  return 0;
}

template <typename T>
void fill_typed(Op op, Buffers& b, ReduceOp redop, int rank, int root) {
  T* out = reinterpret_cast<T*>(b.out.data());
  const size_t out_count = b.out.size() / sizeof(T);
  std::fill(out, out + out_count, static_cast<T>(-1));
  T* mine = op == Op::kAllgather ? reinterpret_cast<T*>(b.in.data()) : out;
  if (op == Op::kBroadcast && rank != root) return;
  for (size_t i = 0; i < b.count; ++i) mine[i] = static_cast<T>(pattern(redop, rank, i));
}

template <typename T>
int64_t wrong_typed(Op op, const Buffers& b, ReduceOp redop, int ranks, int root) {
  const T* out = reinterpret_cast<const T*>(b.out.data());
  const size_t out_count = b.out.size() / sizeof(T);
  int64_t wrong = 0;
  for (size_t i = 0; i < out_count; ++i) {
    if (out[i] != static_cast<T>(expected(op, redop, b.count, i, ranks, root))) ++wrong;
  }
  return wrong;
}

}  // namespace

void fill_pattern(Op op, Buffers& bufs, ReduceOp redop, int rank, int /*ranks*/, int root) {
  switch (bufs.dtype) {
    case DataType::kFloat64:
      return fill_typed<double>(op, bufs, redop, rank, root);
    case DataType::kInt32:
      return fill_typed<int32_t>(op, bufs, redop, rank, root);
    case DataType::kInt64:
      return fill_typed<int64_t>(op, bufs, redop, rank, root);
    default:
      return fill_typed<float>(op, bufs, redop, rank, root);
  }
}

int64_t count_wrong(Op op, const Buffers& bufs, ReduceOp redop, int /*rank*/, int ranks, int root) {
  switch (bufs.dtype) {
    case DataType::kFloat64:
      return wrong_typed<double>(op, bufs, redop, ranks, root);
    case DataType::kInt32:
      return wrong_typed<int32_t>(op, bufs, redop, ranks, root);
    case DataType::kInt64:
      return wrong_typed<int64_t>(op, bufs, redop, ranks, root);
    default:
      return wrong_typed<float>(op, bufs, redop, ranks, root);
  }
}

}  // namespace hvd::bench
