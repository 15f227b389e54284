// SPDX-License-Identifier: Apache-2.0
#include "report/report_data.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <cstdint>
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

// nlohmann's get<>() on the wrong type throws type_error, which main() would report as an
// internal error (exit 70); every read of the file goes through these instead.
[[noreturn]] void wrong_type(const Input& in, const std::string& where, const std::string& key,
                             const char* expected, const json& got) {
  throw ConfigError(str_cat(in.path, ": ", where, ".", key, " must be ", expected, ", not ",
                            got.type_name(), "; is it ", in.tool, " --json output?"));
}

double number(const Input& in, const json& obj, const std::string& key, const std::string& where) {
  const json& v = field(in, obj, key, where);
  if (!v.is_number()) wrong_type(in, where, key, "a number", v);
  return v.get<double>();
}

const json& array(const Input& in, const json& obj, const std::string& key,
                  const std::string& where) {
  const json& v = field(in, obj, key, where);
  if (!v.is_array()) wrong_type(in, where, key, "a list", v);
  return v;
}

const json& object(const Input& in, const json& obj, const std::string& key,
                   const std::string& where) {
  const json& v = field(in, obj, key, where);
  if (!v.is_object()) wrong_type(in, where, key, "an object", v);
  return v;
}

// A whole number of at most a million, or `fallback` when absent.
int count_or(const Input& in, const json& obj, const std::string& key, int fallback) {
  const auto it = obj.find(key);
  if (it == obj.end()) return fallback;
  if (!it->is_number_integer() || it->get<std::int64_t>() < 0 ||
      it->get<std::int64_t>() > 1000000) {
    wrong_type(in, "the top level", key, "a whole number from 0 to 1000000", *it);
  }
  return static_cast<int>(it->get<std::int64_t>());
}

// Strings from the file end up in gnuplot commands (titles) and file names. gnuplot runs
// backquotes and @macros, and a newline ends a command, so only these characters get through;
// anything else is refused rather than escaped (hvd-bench and hvd-train never write it).
bool is_label_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         std::string_view(" _.,:/()+=-").find(c) != std::string_view::npos;
}

std::string checked_label(const Input& in, const std::string& where, const std::string& key,
                          const std::string& text) {
  const bool ok = text.size() <= 64 && std::all_of(text.begin(), text.end(), is_label_char);
  if (!ok) {
    throw ConfigError(str_cat(in.path, ": ", where, ".", key,
                              " may hold only up to 64 letters, digits, spaces and _.,:/()+=- "
                              "(hvd-bench and hvd-train write nothing else); got ",
                              json(text).dump(-1, ' ', false, json::error_handler_t::replace)));
  }
  return text;
}

std::string text_or(const Input& in, const json& obj, const std::string& key,
                    const std::string& fallback) {
  const auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return fallback;
  if (!it->is_string()) wrong_type(in, "the top level", key, "a string", *it);
  return checked_label(in, "the top level", key, it->get<std::string>());
}

std::string format_cell(const std::optional<double>& v) {
  if (!v) return "?";
  std::ostringstream out;
  out.precision(10);
  out << *v;
  return out.str();
}

std::string bench_title(const Input& in, const std::string& op) {
  const int ranks = count_or(in, in.doc, "ranks", 0), hosts = count_or(in, in.doc, "hosts", 1);
  return str_cat(op, ", ", ranks, " ranks on ", hosts, hosts == 1 ? " host" : " hosts", " (",
                 text_or(in, in.doc, "backend", "?"), ", ", text_or(in, in.doc, "dtype", "?"), ")");
}

// The op names output files (STEM-OP.png), so it is held to a file-name alphabet.
std::string op_name(const Input& in, const json& result, const std::string& where) {
  const json& v = field(in, result, "op", where);
  if (!v.is_string()) wrong_type(in, where, "op", "a string", v);
  const std::string op = v.get<std::string>();
  const bool ok = !op.empty() && op.size() <= 32 && std::all_of(op.begin(), op.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
  if (!ok) {
    throw ConfigError(str_cat(in.path, ": ", where,
                              ".op must be a name of up to 32 letters, "
                              "digits and _ (e.g. allreduce); got ",
                              v.dump(-1, ' ', false, json::error_handler_t::replace)));
  }
  return op;
}

BenchTable bench_table(const Input& in, const json& result, size_t index) {
  const std::string where = str_cat("results[", index, "]");
  BenchTable t;
  t.op = op_name(in, result, where);
  t.title = bench_title(in, t.op);
  const json& rows = array(in, result, "rows", where);
  std::vector<std::pair<double, std::map<std::string, double>>> parsed;
  for (size_t r = 0; r < rows.size(); ++r) {
    const std::string row_where = str_cat(where, ".rows[", r, "]");
    std::map<std::string, double> cells;
    for (const auto& [impl, values] : object(in, rows[r], "impls", row_where).items()) {
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
  // Checked before the cast: a double outside int's range does not convert.
  if (!(ranks >= 1 && ranks <= 1000000) || ranks != static_cast<double>(static_cast<int>(ranks))) {
    throw ConfigError(str_cat(in.path, ": \"ranks\" must be a whole number from 1 to 1000000"));
  }
  row.ranks = static_cast<int>(ranks);
  const json& total = object(in, in.doc, "img_per_sec_total", "the top level");
  row.img_per_sec = number(in, total, "mean", "img_per_sec_total");
  row.img_per_sec_ci = total.contains("ci") ? number(in, total, "ci", "img_per_sec_total") : 0;
  const json& eff = field(in, in.doc, "scaling_efficiency", "the top level");
  if (!eff.is_number() && !eff.is_null()) {
    wrong_type(in, "the top level", "scaling_efficiency", "a number or null", eff);
  }
  row.efficiency = eff.is_number() ? eff.get<double>() : -1;  // -1: compute it
  return row;
}

bool flag(const Input& in, const json& obj, const std::string& key, const std::string& where) {
  const json& v = field(in, obj, key, where);
  if (!v.is_boolean()) wrong_type(in, where, key, "true or false", v);
  return v.get<bool>();
}

// A host name reaches gnuplot only inside single quotes (gnuplot_quote), where nothing is
// substituted, so any printable text is drawn as written; a control character would end the
// command, and no host name holds one.
std::string host_name(const Input& in, const json& obj, const std::string& key,
                      const std::string& where) {
  const json& v = field(in, obj, key, where);
  if (!v.is_string()) wrong_type(in, where, key, "a string", v);
  const std::string host = v.get<std::string>();
  const bool ok =
      !host.empty() && host.size() <= 255 && std::none_of(host.begin(), host.end(), [](char c) {
        return static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
      });
  if (!ok) {
    throw ConfigError(str_cat(in.path, ": ", where, ".", key,
                              " must be a host name of 1 to 255 characters without control "
                              "characters; got ",
                              v.dump(-1, ' ', false, json::error_handler_t::replace)));
  }
  return host;
}

PreflightNode preflight_node(const Input& in, const json& node, const std::string& where) {
  PreflightNode n;
  n.host = host_name(in, node, "host", where);
  n.memory_gbps = number(in, node, "memory_gbps", where);
  const double intra = number(in, node, "intra_busbw_gbps", where);
  if (intra >= 0) n.intra_busbw_gbps = intra;  // -1: one rank on the node
  n.flagged = flag(in, node, "flagged", where);
  return n;
}

PreflightLink preflight_link(const Input& in, const json& link, const std::string& where) {
  PreflightLink l;
  l.a = host_name(in, link, "a", where);
  l.b = host_name(in, link, "b", where);
  l.busbw_gbps = number(in, link, "busbw_gbps", where);
  l.latency_us = number(in, link, "latency_us", where);
  l.flagged = flag(in, link, "flagged", where);
  return l;
}

}  // namespace

Input load_input(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {  // reading one throws a bare ios failure
    throw ConfigError(str_cat(path, ": is a directory; give the JSON files in it"));
  }
  std::ifstream file(path);
  if (!file) throw ConfigError(str_cat(path, ": cannot open the file: ", std::strerror(errno)));
  if (file.peek() == std::ifstream::traits_type::eof()) {
    throw ConfigError(str_cat(path, ": the file is empty; give the file that hvd-bench --json, "
                              "hvd-train --json, hvdrun predict --json or hvdrun preflight --json "
                              "wrote"));
  }
  Input in{path, "", json()};
  try {
    in.doc = json::parse(file);
  } catch (const json::exception& e) {  // parse_error, and out_of_range for a number like 1e999
    throw ConfigError(str_cat(path, ": not valid JSON (", e.what(), ")"));
  } catch (const std::ios_base::failure& e) {
    throw ConfigError(str_cat(path, ": cannot read the file: ", e.what()));
  }
  const auto tool = in.doc.is_object() ? in.doc.find("tool") : in.doc.end();
  in.tool = tool != in.doc.end() && tool->is_string() ? tool->get<std::string>() : "";
  if (in.tool != "hvd-bench" && in.tool != "hvd-train" && in.tool != "hvdrun predict" &&
      in.tool != "hvdrun preflight") {
    throw ConfigError(str_cat(path,
                              ": not hvd-bench, hvd-train, hvdrun predict or hvdrun preflight JSON "
                              "(\"tool\" is ",
                              in.tool.empty() ? "missing" : "\"" + in.tool + "\"",
                              "); write one with hvd-bench --json, hvd-train --json, hvdrun "
                              "predict --json or hvdrun preflight --json"));
  }
  return in;
}

std::vector<BenchTable> bench_tables(const Input& in) {
  std::vector<BenchTable> tables;
  const json& results = array(in, in.doc, "results", "the top level");
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
    const Input& first = inputs.front();
    t.title = str_cat("hvd-train scaling (", text_or(first, first.doc, "device", "?"), ", batch ",
                      count_or(first, first.doc, "batch_per_rank", 0), " per rank)");
  }
  return t;
}

TrainTable predict_table(const Input& in) {
  TrainTable t;
  std::map<int, size_t> seen;  // ranks -> row index, to refuse two rows for one rank count
  const json& rows = array(in, in.doc, "rows", "the top level");
  for (size_t i = 0; i < rows.size(); ++i) {
    const std::string where = str_cat("rows[", i, "]");
    const double ranks = number(in, rows[i], "ranks", where);
    if (!(ranks >= 1 && ranks <= 1000000) ||
        ranks != static_cast<double>(static_cast<int>(ranks))) {
      throw ConfigError(
          str_cat(in.path, ": ", where, ".ranks must be a whole number from 1 to 1000000"));
    }
    TrainRow row;
    row.ranks = static_cast<int>(ranks);
    row.img_per_sec = number(in, rows[i], "samples_per_sec", where);
    row.efficiency = number(in, rows[i], "efficiency", where);
    if (!seen.emplace(row.ranks, i).second) {
      throw ConfigError(str_cat(in.path, ": ", where, " predicts ", row.ranks,
                                " ranks again; draw one --ranks-per-node at a time"));
    }
    t.rows.push_back(row);
  }
  std::sort(t.rows.begin(), t.rows.end(),
            [](const TrainRow& a, const TrainRow& b) { return a.ranks < b.ranks; });
  t.title = "hvdrun predict: predicted scaling";
  return t;
}

PreflightTable preflight_table(const Input& in) {
  PreflightTable t;
  t.threshold = number(in, in.doc, "threshold", "the top level");
  if (!(t.threshold > 0 && t.threshold <= 1)) {
    throw ConfigError(str_cat(in.path,
                              ": the top level.threshold must be above 0 and at most 1, not ",
                              format_cell(t.threshold), "; is it hvdrun preflight --json output?"));
  }
  const json& medians = object(in, in.doc, "medians", "the top level");
  t.median_memory_gbps = number(in, medians, "memory_gbps", "medians");
  t.median_intra_busbw_gbps = number(in, medians, "intra_busbw_gbps", "medians");
  t.median_link_busbw_gbps = number(in, medians, "link_busbw_gbps", "medians");
  t.median_link_latency_us = number(in, medians, "link_latency_us", "medians");
  const json& nodes = array(in, in.doc, "nodes", "the top level");
  if (nodes.empty()) {
    throw ConfigError(str_cat(in.path, ": the top level.nodes is empty; nothing to draw"));
  }
  for (size_t i = 0; i < nodes.size(); ++i) {
    t.nodes.push_back(preflight_node(in, nodes[i], str_cat("nodes[", i, "]")));
    if (t.nodes.back().flagged) t.flagged_hosts.push_back(t.nodes.back().host);
  }
  const json& links = array(in, in.doc, "links", "the top level");
  for (size_t i = 0; i < links.size(); ++i) {
    t.links.push_back(preflight_link(in, links[i], str_cat("links[", i, "]")));
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

std::string to_gnuplot_data(const PreflightTable& t) {
  std::string out = "# nodes: x flagged memory_gbps intra_busbw_gbps\n";
  for (size_t i = 0; i < t.nodes.size(); ++i) {
    const PreflightNode& n = t.nodes[i];
    out += str_cat(i, " ", n.flagged ? 1 : 0, " ", format_cell(n.memory_gbps), " ",
                   format_cell(n.intra_busbw_gbps), "\n");
  }
  if (t.links.empty()) return out;
  out += "\n\n# links: x flagged busbw_gbps latency_us\n";  // two blank lines: the next index
  for (size_t i = 0; i < t.links.size(); ++i) {
    const PreflightLink& l = t.links[i];
    out += str_cat(i, " ", l.flagged ? 1 : 0, " ", format_cell(l.busbw_gbps), " ",
                   format_cell(l.latency_us), "\n");
  }
  return out;
}

}  // namespace hvd::launcher::report
