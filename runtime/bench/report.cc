// SPDX-License-Identifier: Apache-2.0
#include "bench/report.h"

#include <cstdio>
#include <fstream>

#include "files/atomic_file.h"
#include "hvd/error.h"
#include "hvd/str_cat.h"

namespace hvd::bench {
namespace {

std::string format(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), fmt, v);
  return buf;
}

std::string padded(const std::string& s, size_t width) {
  return s.size() >= width ? s : std::string(width - s.size(), ' ') + s;
}

nlohmann::json impl_json(const ImplResult& r) {
  nlohmann::json j = {
      {"time_us", r.time_us}, {"algbw_GBps", r.algbw_gbps}, {"busbw_GBps", r.busbw_gbps}};
  j["wrong"] = r.wrong >= 0 ? nlohmann::json(r.wrong) : nlohmann::json(nullptr);
  if (!r.algorithm.empty()) j["algorithm"] = r.algorithm;
  return j;
}

}  // namespace

void print_run_header(std::ostream& out, const Options& o, const RunInfo& info) {
  out << "# hvd-bench: " << info.ranks << " ranks on " << info.hosts << " host"
      << (info.hosts == 1 ? "" : "s") << ", layer " << layer_label(o.layer)
      << " (hvd = " << info.backend << "), " << dtype_name(o.dtype) << " " << op_name(o.redop)
      << ", best of " << o.rounds << " rounds of " << o.iters << " iterations after " << o.warmup
      << " warm-up" << (o.check ? ", checked" : "") << "\n";
  out << "# time: the slowest rank's average per operation; busbw: algbw x nccl-tests' factor; "
         "vs: busbw(hvd)/busbw(peer)\n";
  for (const std::string& note : info.notes) out << "# note: " << note << "\n";
}

void print_op_header(std::ostream& out, Op op, const RunInfo& info) {
  std::string top = "# " + std::string(op_label(op));
  top += std::string(43 - top.size(), ' ');
  std::string units = "#         size        count     type  redop";
  for (const std::string& impl : info.impls) {
    const bool peer = impl != "hvd";
    top += " | " + padded(impl, 10) + std::string(peer ? 31 : 23, ' ');
    units += " |   time(us)   algbw   busbw #wrong";
    if (peer) units += "      vs";
    if (impl == "gloo") units += "  algorithm";
  }
  out << top << "\n" << units << "\n";
}

void print_row(std::ostream& out, const Options& o, const Row& row, const RunInfo& info) {
  out << padded(std::to_string(row.bytes), 14) << padded(std::to_string(row.count), 13)
      << padded(std::string(dtype_name(o.dtype)), 9) << padded(std::string(op_name(o.redop)), 7);
  const ImplResult& hvd = row.impls.at("hvd");
  for (const std::string& impl : info.impls) {
    const ImplResult& r = row.impls.at(impl);
    out << " | " << padded(format("%.2f", r.time_us), 10) << padded(format("%.2f", r.algbw_gbps), 8)
        << padded(format("%.2f", r.busbw_gbps), 8)
        << padded(r.wrong >= 0 ? std::to_string(r.wrong) : "N/A", 7);
    if (impl != "hvd") out << padded(format("%.2f", hvd.busbw_gbps / r.busbw_gbps), 8);
    if (impl == "gloo") out << "  " << r.algorithm;
  }
  out << "\n" << std::flush;
}

nlohmann::json to_json(const Options& o, const RunInfo& info, const std::vector<OpResult>& results,
                       const nlohmann::json& scenarios) {
  nlohmann::json doc = {{"tool", "hvd-bench"},
                        {"ranks", info.ranks},
                        {"hosts", info.hosts},
                        {"layer", layer_label(o.layer)},
                        {"backend", info.backend},
                        {"dtype", std::string(dtype_name(o.dtype))},
                        {"redop", std::string(op_name(o.redop))},
                        {"iters", o.iters},
                        {"warmup", o.warmup},
                        {"rounds", o.rounds},
                        {"notes", info.notes}};
  nlohmann::json ops = nlohmann::json::array();
  for (const OpResult& result : results) {
    nlohmann::json rows = nlohmann::json::array();
    for (const Row& row : result.rows) {
      nlohmann::json impls = nlohmann::json::object();
      for (const auto& [name, r] : row.impls) impls[name] = impl_json(r);
      rows.push_back({{"bytes", row.bytes}, {"count", row.count}, {"impls", impls}});
    }
    ops.push_back({{"op", op_label(result.op)}, {"rows", rows}});
  }
  doc["results"] = ops;
  doc["scenarios"] = scenarios.is_null() ? nlohmann::json::object() : scenarios;
  return doc;
}

void write_json(const std::string& file, const nlohmann::json& doc) {
  // Whole or not at all, and never through a planted symlink.
  files::write_file_atomically(file, doc.dump(2) + "\n");
}

}  // namespace hvd::bench
