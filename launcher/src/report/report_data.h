// SPDX-License-Identifier: Apache-2.0
#pragma once
// `hvdrun report`'s input side: hvd-bench, hvd-train, hvdrun predict and hvdrun preflight JSON
// (formats in the README) turned into plain tables that gnuplot reads. Pure functions over parsed
// JSON, so the conversion is unit-tested without gnuplot.

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace hvd::launcher::report {

/// One JSON input, already parsed. `tool` is "hvd-bench", "hvd-train", "hvdrun predict" or
/// "hvdrun preflight".
struct Input {
  std::string path;
  std::string tool;
  nlohmann::json doc;
};

/// Reads and classifies one file. Throws ConfigError naming the file when it is missing,
/// is not JSON, or is not the output of one of those tools.
Input load_input(const std::string& path);

/// Bus bandwidth of one collective against message size: one row per size, one column per
/// implementation ("hvd", "mpi", "gloo", in that order, only those that ran at any size).
/// A cell is nullopt where that implementation did not run at that size.
struct BenchTable {
  std::string op;                  // allreduce, broadcast, allgather
  std::string title;               // e.g. "allreduce, 4 ranks on 1 host (ring/shm, float32)"
  std::vector<std::string> impls;  // column names
  std::vector<double> bytes;       // x values, ascending
  std::vector<std::vector<std::optional<double>>> busbw;  // [row][impl], GB/s
};

/// One table per op of an hvd-bench file, in the file's order; ops without rows are left out.
/// Throws ConfigError naming `input.path` and the field when the JSON lacks a required key.
std::vector<BenchTable> bench_tables(const Input& input);

/// Throughput and scaling efficiency against the number of ranks, one row per hvd-train file.
struct TrainRow {
  int ranks = 0;
  double img_per_sec = 0;     // img_per_sec_total.mean
  double img_per_sec_ci = 0;  // its confidence half-width
  double efficiency = 0;      // scaling_efficiency, or computed (see train_table)
};
struct TrainTable {
  std::string title;
  std::vector<TrainRow> rows;  // ascending ranks
};

/// Rows sorted by ranks. A file whose scaling_efficiency is null gets one computed against the
/// run with the fewest ranks: (img/s per rank) / (img/s per rank of that run). Throws
/// ConfigError for a missing field or two files with the same rank count.
TrainTable train_table(const std::vector<Input>& inputs);

/// `hvdrun predict --json`'s rows as the same table: samples/s and efficiency per rank count.
/// Throws ConfigError for a missing field or two rows with one rank count.
TrainTable predict_table(const Input& input);

/// `hvdrun preflight --json`'s verdict: each node's and link's figures, whether it was flagged,
/// and the medians the threshold applies to. Host names are kept as written (any printable
/// text): the plot passes them to gnuplot only as single-quoted literals.
struct PreflightNode {
  std::string host;
  double memory_gbps = 0;
  std::optional<double> intra_busbw_gbps;  // nullopt: one rank on the node, nothing timed
  bool flagged = false;
};
struct PreflightLink {
  std::string a, b;  // its two hosts
  double busbw_gbps = 0;
  double latency_us = 0;
  bool flagged = false;
};
struct PreflightTable {
  double threshold = 0;  // a figure below threshold x median (latency: above median / threshold)
  double median_memory_gbps = 0;
  double median_intra_busbw_gbps = 0;  // 0: no node has two ranks
  double median_link_busbw_gbps = 0;   // 0: no links
  double median_link_latency_us = 0;
  std::vector<PreflightNode> nodes;  // at least one, in the file's order
  std::vector<PreflightLink> links;
  std::vector<std::string> flagged_hosts;  // the flagged nodes, in the file's order
};

/// Throws ConfigError naming the file and the field for a missing or mistyped field, no nodes,
/// a threshold outside (0, 1], or a host name that is empty, longer than 255 bytes or holds a
/// control character (a newline would end a gnuplot command).
PreflightTable preflight_table(const Input& input);

/// The table as whitespace-separated text for gnuplot: a "#" header line with the column
/// names, then one row per line; a missing cell is written as "?" (set datafile missing "?").
std::string to_gnuplot_data(const BenchTable& table);
std::string to_gnuplot_data(const TrainTable& table);
/// Two blocks (gnuplot's `index 0` and `index 1`, the second only with links): per node
/// "x flagged memory_gbps intra_busbw_gbps", per link "x flagged busbw_gbps latency_us", x being
/// the bar's position (0, 1, ...) and flagged 0 or 1. No names: those go in as tic labels.
std::string to_gnuplot_data(const PreflightTable& table);

}  // namespace hvd::launcher::report
