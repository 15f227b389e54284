// SPDX-License-Identifier: Apache-2.0
#pragma once
// hvd-bench's output: an nccl-tests-style table on rank 0's stdout (one line per size, the
// hvd and peer columns side by side, each peer with busbw(hvd)/busbw(peer)), and the JSON
// file described in the helper notes (tool, ranks, hosts, layer, backend, dtype, redop,
// results[op].rows[].impls{hvd,mpi,gloo}, scenarios).

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "bench/bench_options.h"
#include "bench/measure.h"

namespace hvd::bench {

struct RunInfo {
  int ranks = 1;
  int hosts = 1;
  std::string backend;             // "ring/shm", "ring/tcp", "mpi" or "runtime/<...>"
  std::vector<std::string> impls;  // column order: "hvd" first
  std::vector<std::string> notes;
};

void print_run_header(std::ostream& out, const Options& options, const RunInfo& info);
void print_op_header(std::ostream& out, Op op, const RunInfo& info);
void print_row(std::ostream& out, const Options& options, const Row& row, const RunInfo& info);

/// The whole run as the shared JSON format; `scenarios` goes in as it is.
nlohmann::json to_json(const Options& options, const RunInfo& info,
                       const std::vector<OpResult>& results, const nlohmann::json& scenarios);

/// Writes `doc` to `file` (pretty-printed). Throws ConfigError naming the file when it cannot.
void write_json(const std::string& file, const nlohmann::json& doc);

}  // namespace hvd::bench
