// SPDX-License-Identifier: Apache-2.0
#pragma once
// --check: fills a measurement's buffers with a pattern whose result is exact in every dtype
// (small integers; for prod only 1s and 2s) and counts the elements that differ from it.

#include <cstdint>

#include "bench/bench_options.h"
#include "bench/collective_impl.h"

namespace hvd::bench {

/// Fills this rank's input (allgather: `in`; otherwise `out`) with the pattern, and the rest
/// of `out` with a value the operation must overwrite.
void fill_pattern(Op op, Buffers& bufs, ReduceOp redop, int rank, int ranks, int root);

/// Elements of `out` that differ from what `op` must leave there on this rank.
int64_t count_wrong(Op op, const Buffers& bufs, ReduceOp redop, int rank, int ranks, int root);

}  // namespace hvd::bench
