// SPDX-License-Identifier: Apache-2.0
#include "report/report_data.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>

#include "hvd/error.h"

namespace hvd::launcher::report {
namespace {

using nlohmann::json;

// The implementations hvd-bench compares, in the order the plots list them.
const std::vector<std::string> kImpls = {"hvd", "mpi", "gloo"};

const json& field(const Input& in, const json& obj, const std::string& key,
                  const std::string& where) {
  if (!obj.is_object() || !obj.contains(key)) {
    throw ConfigError(
        str_cat(in.path, ": ", where, " has no \"", key, "\"; is it ", in.tool, " --json output?"));
  }
  return obj.at(key);
}

double number(const Input& in, const json& obj, const std::string& key, const std::string& where) {
  const json& v = field(in, obj, key, where);
  if (!v.is_number())
    throw ConfigError(str_cat(in.path, ": ", where, ".", key, " is not a number"));
  return v.get<double>();
}

std::string text_or(const json& obj, const std::string& key, const std::string& fallback) {
  const auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : fallback;
}

std::string format_cell(const std::optional<double>& v) {
  if (!v) return "?";
  std::ostringstream out;
  out.precision(10);
  out << *v;
  return out.str();
}

std::string bench_title(const json& doc, const std::string& op) {
  const int ranks = doc.value("ranks", 0), hosts = doc.value("hosts", 1);
  return str_cat(op, ", ", ranks, " ranks on ", hosts, hosts == 1 ? " host" : " hosts", " (",
                 text_or(doc, "backend", "?"), ", ", text_or(doc, "dtype", "?"), ")");
}

BenchTable bench_table(const Input& in, const json& result, size_t index) {
  const std::string where = str_cat("results[", index, "]");
  BenchTable t;
  t.op = field(in, result, "op", where).get<std::string>();
  t.title = bench_title(in.doc, t.op);
  const json& rows = field(in, result, "rows", where);
  std::vector<std::pair<double, std::map<std::string, double>>> parsed;
  for (size_t r = 0; r < rows.size(); ++r) {
    const std::string row_where = str_cat(where, ".rows[", r, "]");
    std::map<std::string, double> cells;
    for (const auto& [impl, values] : field(in, rows[r], "impls", row_where).items()) {
      cells[impl] = number(in, values, "busbw_GBps", str_cat(row_where, ".impls.", impl));
    }
    parsed.emplace_back(number(in, rows[r], "bytes", row_where), std::move(cells));
  }
  std::sort(parsed.begin(), parsed.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const std::string& impl : kImpls) {
    const bool ran = std::any_of(parsed.begin(), parsed.end(),
                                 [&](const auto& row) { return row.second.count(impl) > 0; });
    if (ran) t.impls.push_back(impl);
  }
  for (const auto& [bytes, cells] : parsed) {
    t.bytes.push_back(bytes);
    std::vector<std::optional<double>> row;
    for (const std::string& impl : t.impls) {
      const auto it = cells.find(impl);
      row.push_back(it == cells.end() ? std::nullopt : std::optional<double>(it->second));
    }
    t.busbw.push_back(std::move(row));
  }
  return t;
}

TrainRow train_row(const Input& in) {
  TrainRow row;
  const double ranks = number(in, in.doc, "ranks", "the top level");
  row.ranks = static_cast<int>(ranks);
  if (row.ranks < 1 || row.ranks != ranks) {
    throw ConfigError(str_cat(in.path, ": \"ranks\" must be a positive whole number"));
  }
  const json& total = field(in, in.doc, "img_per_sec_total", "the top level");
  row.img_per_sec = number(in, total, "mean", "img_per_sec_total");
  row.img_per_sec_ci = total.contains("ci") ? number(in, total, "ci", "img_per_sec_total") : 0;
  const json& eff = field(in, in.doc, "scaling_efficiency", "the top level");
  row.efficiency = eff.is_number() ? eff.get<double>() : -1;  // -1: compute it
  return row;
}

}  // namespace

Input load_input(const std::string& path) {
  std::ifstream file(path);
  if (!file) throw ConfigError(str_cat(path, ": cannot open the file"));
  Input in{path, "", json()};
  try {
    in.doc = json::parse(file);
  } catch (const json::parse_error& e) {
    throw ConfigError(str_cat(path, ": not valid JSON (", e.what(), ")"));
  }
  in.tool = in.doc.is_object() ? text_or(in.doc, "tool", "") : "";
  if (in.tool != "hvd-bench" && in.tool != "hvd-train") {
    throw ConfigError(str_cat(path, ": not hvd-bench or hvd-train JSON (\"tool\" is ",
                              in.tool.empty() ? "missing" : "\"" + in.tool + "\"",
                              "); write one with hvd-bench --json or hvd-train --json"));
  }
  return in;
}

std::vector<BenchTable> bench_tables(const Input& in) {
  std::vector<BenchTable> tables;
  const json& results = field(in, in.doc, "results", "the top level");
  for (size_t i = 0; i < results.size(); ++i) {
    BenchTable t = bench_table(in, results[i], i);
    if (!t.bytes.empty()) tables.push_back(std::move(t));
  }
  return tables;
}

TrainTable train_table(const std::vector<Input>& inputs) {
  TrainTable t;
  std::map<int, std::string> seen;  // ranks -> file, to refuse duplicates
  for (const Input& in : inputs) {
    TrainRow row = train_row(in);
    if (const auto dup = seen.find(row.ranks); dup != seen.end()) {
      throw ConfigError(str_cat(in.path, ": a second hvd-train result for ", row.ranks,
                                " ranks (the first is ", dup->second,
                                "); give one per rank count"));
    }
    seen[row.ranks] = in.path;
    t.rows.push_back(row);
  }
  std::sort(t.rows.begin(), t.rows.end(),
            [](const TrainRow& a, const TrainRow& b) { return a.ranks < b.ranks; });
  if (!t.rows.empty()) {
    const TrainRow& base = t.rows.front();
    const double base_per_rank = base.img_per_sec / base.ranks;
    for (TrainRow& r : t.rows) {
      if (r.efficiency < 0)
        r.efficiency = base_per_rank > 0 ? r.img_per_sec / r.ranks / base_per_rank : 0;
    }
    const json& doc = inputs.front().doc;
    t.title = str_cat("hvd-train scaling (", text_or(doc, "device", "?"), ", batch ",
                      doc.value("batch_per_rank", 0), " per rank)");
  }
  return t;
}

std::string to_gnuplot_data(const BenchTable& t) {
  std::string out = "# bytes";
  for (const std::string& impl : t.impls) out += " " + impl;
  out += "\n";
  for (size_t r = 0; r < t.bytes.size(); ++r) {
    out += format_cell(t.bytes[r]);
    for (const auto& cell : t.busbw[r]) out += " " + format_cell(cell);
    out += "\n";
  }
  return out;
}

std::string to_gnuplot_data(const TrainTable& t) {
  std::string out = "# ranks img_per_sec img_per_sec_ci efficiency\n";
  for (const TrainRow& r : t.rows) {
    out += str_cat(r.ranks, " ", format_cell(r.img_per_sec), " ", format_cell(r.img_per_sec_ci),
                   " ", format_cell(r.efficiency), "\n");
  }
  return out;
}

}  // namespace hvd::launcher::report
