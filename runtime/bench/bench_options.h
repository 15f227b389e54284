// SPDX-License-Identifier: Apache-2.0
#pragma once
// hvd-bench's command line: nccl-tests' flags (-b -e -f -n -w -d -o -c) plus which layer of
// libhvd to time, which peers to time beside it, JSON output and the runtime scenarios.

#include <cstddef>
#include <string>
#include <vector>

#include "hvd/tensor.h"

namespace hvd::bench {

enum class Op { kAllreduce, kBroadcast, kAllgather };
const char* op_label(Op op);

/// backend: the hvd backend libhvd would pick, called directly (what "ring vs MPI/Gloo"
/// means); runtime: the public API, with negotiation, the response cache and fusion.
enum class Layer { kBackend, kRuntime };
const char* layer_label(Layer layer);

struct Options {
  size_t min_bytes = 8;
  size_t max_bytes = size_t{64} << 20;
  double step_factor = 2.0;
  int iters = 20;
  int warmup = 5;
  /// Each implementation is timed this many times per row, interleaved with the others, and
  /// the best round counts: a shared machine's noise then hits every column alike.
  int rounds = 3;
  std::vector<Op> ops{Op::kAllreduce};
  DataType dtype = DataType::kFloat32;
  ReduceOp redop = ReduceOp::kSum;
  int root = 0;
  Layer layer = Layer::kBackend;
  bool want_mpi = true;
  bool want_gloo = true;
  /// The user named the peers (rather than the default "auto"): a missing one is an error.
  bool peers_explicit = false;
  std::string json_file;
  bool check = false;
  /// "" (the table), "fusion", "cache" or "runtime-vs-raw" (runtime layer; see scenarios.h).
  std::string scenario;
  /// Scenario fusion: tensors per step and bytes per tensor.
  int fusion_tensors = 100;
  size_t fusion_bytes = size_t{4} << 10;
  /// Scenario fusion: each tensor its own allocation, or all of them carved out of one (as a
  /// framework's gradient bucket), which the ring moves as one piece.
  bool fusion_contiguous = false;
};

/// "8", "64K", "1M", "2G" (binary multiples; a trailing "B" or "iB" is accepted) as bytes.
/// Throws UsageError naming `flag`.
size_t parse_bytes(const std::string& text, const std::string& flag);

/// Parses the command line into `out`. Returns -1 to go on, 0 after printing --help, or 2 after
/// printing a usage error (one line naming the flag) to stderr.
int parse_options(int argc, char** argv, Options& out);

}  // namespace hvd::bench
