// SPDX-License-Identifier: Apache-2.0
#pragma once
// Impl: one implementation of the collectives under test: hvd (the backend or the runtime),
// or a peer (Open MPI, Gloo). The measurement loop (measure.h) sees only this interface.
// Every rank calls the same methods in the same order; failures throw hvd::Error.

#include <functional>
#include <string>
#include <vector>

#include "bench/bench_options.h"
#include "hvd/tensor.h"

namespace hvd::bench {

/// The memory of one measurement. Allreduce and broadcast work in place on `out`; allgather
/// reads `in` (count elements) and writes `out` (count elements from each rank, in rank order).
struct Buffers {
  DataType dtype = DataType::kFloat32;
  size_t count = 0;  // elements of this rank's part
  std::vector<char> in;
  std::vector<char> out;
};

/// A prepared operation: runs the collective once over the Buffers it was prepared with.
using RunOnce = std::function<void()>;

class Impl {
 public:
  virtual ~Impl() = default;
  /// "hvd", "mpi" or "gloo": the column and JSON key.
  virtual std::string name() const = 0;
  /// The algorithms it can run `op` with; "" is its only, default one. Gloo lists several and
  /// the table shows the fastest.
  virtual std::vector<std::string> algorithms(Op op) const {
    (void)op;
    return {""};
  }
  /// Sets up `op` over `bufs` (buffer registration and the like stay outside the timed loop).
  /// Collective. The returned function is valid while `bufs` lives and its size is unchanged.
  virtual RunOnce prepare(Op op, const std::string& algorithm, Buffers& bufs, ReduceOp redop,
                          int root) = 0;
  /// In place over all ranks, element-wise: kMax (the slowest rank's time) or kSum.
  virtual void reduce(std::vector<double>& values, ReduceOp op) = 0;
  virtual void barrier() = 0;
};

}  // namespace hvd::bench
