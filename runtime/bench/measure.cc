// SPDX-License-Identifier: Apache-2.0
#include "bench/measure.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <memory>

#include "bench/check_pattern.h"

namespace hvd::bench {
namespace {

using Clock = std::chrono::steady_clock;

Buffers make_buffers(Op op, DataType dtype, size_t count, int ranks) {
  Buffers b;
  b.dtype = dtype;
  b.count = op == Op::kAllgather ? count / static_cast<size_t>(ranks) : count;
  const size_t es = dtype_size(dtype);
  if (op == Op::kAllgather) b.in.assign(b.count * es, 0);
  b.out.assign(count * es, 0);  // zeros: repeated sums stay finite and never denormal
  return b;
}

int64_t check(const Options& o, Op op, Impl& impl, const std::string& algorithm, size_t count,
              int rank, int ranks) {
  Buffers b = make_buffers(op, o.dtype, count, ranks);
  fill_pattern(op, b, o.redop, rank, ranks, o.root);
  RunOnce run = impl.prepare(op, algorithm, b, o.redop, o.root);
  run();
  std::vector<double> wrong{static_cast<double>(count_wrong(op, b, o.redop, rank, ranks, o.root))};
  impl.reduce(wrong, ReduceOp::kSum);
  return static_cast<int64_t>(wrong[0]);
}

}  // namespace

double time_round(const Options& o, Impl& sync, const RunOnce& run) {
  for (int i = 0; i < o.warmup; ++i) run();
  sync.barrier();
  const auto start = Clock::now();
  for (int i = 0; i < o.iters; ++i) run();
  const std::chrono::duration<double, std::micro> took = Clock::now() - start;
  std::vector<double> slowest{took.count() / o.iters};
  sync.reduce(slowest, ReduceOp::kMax);
  return slowest[0];
}

double time_best(const Options& o, Impl& sync, const RunOnce& run) {
  double best = std::numeric_limits<double>::max();
  for (int round = 0; round < o.rounds; ++round) best = std::min(best, time_round(o, sync, run));
  return best;
}

double bus_factor(Op op, int ranks) {
  const double n = ranks;
  switch (op) {
    case Op::kAllreduce:
      return 2.0 * (n - 1) / n;
    case Op::kAllgather:
      return (n - 1) / n;
    case Op::kBroadcast:
      return 1.0;
  }
  return 1.0;
}

std::vector<size_t> row_sizes(const Options& o, Op op, int ranks) {
  const size_t unit = dtype_size(o.dtype) * (op == Op::kAllgather ? static_cast<size_t>(ranks) : 1);
  std::vector<size_t> sizes;
  for (double s = static_cast<double>(o.min_bytes); s <= static_cast<double>(o.max_bytes);
       s *= o.step_factor) {
    const size_t bytes = static_cast<size_t>(s) / unit * unit;
    if (bytes > 0 && (sizes.empty() || sizes.back() != bytes)) sizes.push_back(bytes);
  }
  return sizes;
}

Row measure_row(const Options& o, Op op, size_t bytes, int rank, int ranks,
                const std::vector<Impl*>& impls) {
  Row row;
  row.bytes = bytes;
  row.count = bytes / dtype_size(o.dtype);
  // One set of buffers and one prepared operation per implementation and algorithm, reused by
  // every round: fresh memory each round would time page faults and (for MPI's single-copy
  // path) page pinning instead of the collective.
  struct Prepared {
    Impl* impl;
    std::string algorithm;
    std::unique_ptr<Buffers> bufs;
    RunOnce run;
  };
  std::vector<Prepared> prepared;
  for (Impl* impl : impls) {
    row.impls[impl->name()].time_us = std::numeric_limits<double>::max();
    for (const std::string& algorithm : impl->algorithms(op)) {
      auto bufs = std::make_unique<Buffers>(make_buffers(op, o.dtype, row.count, ranks));
      RunOnce run = impl->prepare(op, algorithm, *bufs, o.redop, o.root);
      prepared.push_back({impl, algorithm, std::move(bufs), std::move(run)});
    }
  }
  for (int round = 0; round < o.rounds; ++round) {
    for (Prepared& p : prepared) {
      const double us = time_round(o, *p.impl, p.run);
      ImplResult& best = row.impls[p.impl->name()];
      if (us < best.time_us) {
        best.time_us = us;
        best.algorithm = p.algorithm;
      }
    }
  }
  prepared.clear();
  for (Impl* impl : impls) {
    ImplResult& r = row.impls[impl->name()];
    r.algbw_gbps = static_cast<double>(bytes) / (r.time_us * 1e3);  // bytes/us/1e3 = GB/s
    r.busbw_gbps = r.algbw_gbps * bus_factor(op, ranks);
    if (o.check) r.wrong = check(o, op, *impl, r.algorithm, row.count, rank, ranks);
  }
  return row;
}

}  // namespace hvd::bench
