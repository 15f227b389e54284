// SPDX-License-Identifier: Apache-2.0
#pragma once
// gnuplot scripts for `hvdrun report`: one plot per hvd-bench op (bus bandwidth against message
// size, one line per implementation) and one for a set of hvd-train runs (images per second and
// scaling efficiency against ranks), and one for an hvdrun preflight verdict (bars per node and
// per link against their median and the threshold). gnuplot runs in a folder holding the data
// files, so the scripts name files relatively and never quote a user's path.

#include <string>
#include <vector>

#include "report/report_data.h"

namespace hvd::launcher::report {

/// One picture: its data file and the gnuplot commands that draw it, minus terminal and output.
struct Plot {
  std::string name;       // output base name, e.g. "bench-allreduce"
  std::string data_file;  // e.g. "bench-allreduce.dat"
  std::string data;       // its content
  std::string commands;   // "set ...\nplot ...\n"
  int width = 900;        // pixels
  int height = 560;
};

Plot bench_plot(const BenchTable& table, const std::string& name);
Plot train_plot(const TrainTable& table, const std::string& name);
/// Panels side by side: node memory bandwidth, node shared-memory busbw (when a node has two
/// ranks), link busbw and link latency (when there are links). Flagged bars are red, the median
/// and its threshold are lines, and the title names the threshold and the flagged hosts.
Plot preflight_plot(const PreflightTable& table, const std::string& name);

/// The image formats hvdrun can write.
inline const std::vector<std::string> kFormats = {"png", "svg"};

/// One script that draws every plot in every format: NAME.FORMAT in gnuplot's working folder.
std::string gnuplot_script(const std::vector<Plot>& plots, const std::vector<std::string>& formats);

/// Any string as a gnuplot string literal that gives back exactly its bytes: double quotes, with
/// every byte but letters, digits, space and plain punctuation as an octal escape, so nothing in
/// it can end the literal, run a command (backquotes, system()) or expand a macro.
std::string gnuplot_quote(const std::string& text);

}  // namespace hvd::launcher::report
