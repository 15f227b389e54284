// SPDX-License-Identifier: Apache-2.0
#pragma once
// The measurement loop: for each size, every implementation (and each of its algorithms) is
// timed in --rounds interleaved rounds of -w warm-up and -n timed operations. A round's time
// is the slowest rank's average (a max-reduce through the implementation itself); the best
// round counts. With --check, each implementation then runs once more on a known pattern and
// the wrong elements are counted on every rank and summed.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "bench/bench_options.h"
#include "bench/collective_impl.h"

namespace hvd::bench {

struct ImplResult {
  double time_us = 0;
  double algbw_gbps = 0;
  double busbw_gbps = 0;
  int64_t wrong = -1;     // -1: not checked
  std::string algorithm;  // the fastest of Impl::algorithms(); "" for the only one
};

struct Row {
  size_t bytes = 0;  // allgather: the gathered size
  size_t count = 0;  // elements in `bytes`
  std::map<std::string, ImplResult> impls;
};

struct OpResult {
  Op op = Op::kAllreduce;
  std::vector<Row> rows;
};

/// nccl-tests' bus-bandwidth factor for `op` over `ranks`.
double bus_factor(Op op, int ranks);

/// The sizes from -b to -e (times -f), rounded down to whole elements (allgather: whole
/// elements per rank); sizes that round to nothing are left out.
std::vector<size_t> row_sizes(const Options& options, Op op, int ranks);

/// One timed round of `run`: -w warm-up calls, a barrier, -n timed calls; the slowest rank's
/// average in microseconds (`sync` provides the barrier and the max-reduce). Collective.
double time_round(const Options& options, Impl& sync, const RunOnce& run);

/// The best of --rounds rounds of time_round().
double time_best(const Options& options, Impl& sync, const RunOnce& run);

/// Times every implementation for one row. Collective over the ranks.
Row measure_row(const Options& options, Op op, size_t bytes, int rank, int ranks,
                const std::vector<Impl*>& impls);

}  // namespace hvd::bench
