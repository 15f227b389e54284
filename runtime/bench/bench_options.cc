// SPDX-License-Identifier: Apache-2.0
#include "bench/bench_options.h"

#include <CLI/CLI.hpp>
#include <cctype>
#include <iostream>
#include <limits>
#include <map>

#include "hvd/error.h"
#include "hvd/str_cat.h"

namespace hvd::bench {
namespace {

constexpr const char* kLaunchHelp = R"(
Launching (2 ranks on this machine):
  mpirun -np 2 build/bin/hvd-bench ...     every peer: Open MPI's own collectives and Gloo
  hvdrun -np 2 -- build/bin/hvd-bench ...  no MPI peer (MPI is not started; a note says so)
The hvd backend is the one libhvd would pick: HVD_BACKEND=ring|mpi, HVD_RING_TRANSPORT=shm|tcp.
Columns: time_us is the slowest rank's average per operation (best of --rounds), algbw =
bytes/time, busbw = algbw x nccl-tests' factor (allreduce 2(n-1)/n, allgather (n-1)/n,
broadcast 1); for allgather, bytes is the gathered (output) size. "vs" columns are
busbw(hvd)/busbw(peer). Scenarios (--scenario, under mpirun with --layer runtime):
  fusion          a step of --fusion-tensors tensors of --fusion-bytes through the runtime
                  (--fusion-layout contiguous: views of one allocation), and one
                  MPI_Allreduce of the same bytes concatenated
  cache           one 8-byte allreduce served from the response cache, waited on (the
                  waiting thread runs the cycle) and polled (the background loop runs it),
                  and MPI_Allreduce
  timeline        the fusion step without and with a timeline, rounds alternating in one
                  process (start_timeline/stop_timeline between them)
  runtime-vs-raw  the runtime against MPI_Allreduce, sizes from -b to -e
)";

const std::map<std::string, DataType> kDtypes = {
    {"float32", DataType::kFloat32}, {"float", DataType::kFloat32}, {"float64", DataType::kFloat64},
    {"double", DataType::kFloat64},  {"int32", DataType::kInt32},   {"int", DataType::kInt32},
    {"int64", DataType::kInt64}};
const std::map<std::string, ReduceOp> kRedops = {{"sum", ReduceOp::kSum},
                                                 {"prod", ReduceOp::kProduct},
                                                 {"min", ReduceOp::kMin},
                                                 {"max", ReduceOp::kMax}};

std::vector<Op> parse_ops(const std::string& text) {
  if (text == "all") return {Op::kAllreduce, Op::kBroadcast, Op::kAllgather};
  if (text == "allreduce") return {Op::kAllreduce};
  if (text == "broadcast") return {Op::kBroadcast};
  if (text == "allgather") return {Op::kAllgather};
  throw UsageError(str_cat("--op '", text, "' is not allreduce, broadcast, allgather or all"));
}

void parse_peers(const std::string& text, Options& out) {
  if (text == "auto") return;
  out.peers_explicit = true;
  out.want_mpi = false;
  out.want_gloo = false;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, comma - start);
    if (item == "mpi") {
      out.want_mpi = true;
    } else if (item == "gloo") {
      out.want_gloo = true;
    } else if (item != "none") {
      throw UsageError(str_cat("--peers: '", item, "' is not mpi, gloo or none"));
    }
    start = comma + 1;
  }
}

void check_ranges(const Options& o) {
  if (o.min_bytes > o.max_bytes) {
    throw UsageError(
        str_cat("-b/--min-bytes (", o.min_bytes, ") is above -e/--max-bytes (", o.max_bytes, ")"));
  }
  if (!(o.step_factor > 1.0)) throw UsageError("-f/--step-factor must be above 1");
  if (o.iters < 1) throw UsageError("-n/--iters must be at least 1");
  if (o.warmup < 0) throw UsageError("-w/--warmup must be 0 or more");
  if (o.rounds < 1) throw UsageError("--rounds must be at least 1");
  if (o.root < 0) throw UsageError("--root must be 0 or more");
  if (o.fusion_tensors < 1) throw UsageError("--fusion-tensors must be at least 1");
}

}  // namespace

const char* op_label(Op op) {
  switch (op) {
    case Op::kAllreduce:
      return "allreduce";
    case Op::kBroadcast:
      return "broadcast";
    case Op::kAllgather:
      return "allgather";
  }
  return "?";
}

const char* layer_label(Layer layer) { return layer == Layer::kBackend ? "backend" : "runtime"; }

size_t parse_bytes(const std::string& text, const std::string& flag) {
  size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  std::string unit = text.substr(digits);
  for (char& c : unit) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (unit.size() > 1 && unit.back() == 'B') unit.pop_back();
  if (unit.size() > 1 && unit.back() == 'I') unit.pop_back();
  if (unit == "B") unit.clear();
  const std::map<std::string, int> shifts = {{"", 0}, {"K", 10}, {"M", 20}, {"G", 30}};
  const auto shift = shifts.find(unit);
  if (digits == 0 || digits > 12 || shift == shifts.end()) {
    throw UsageError(str_cat(flag, " '", text, "' is not a size such as 8, 64K, 1M or 1G"));
  }
  return static_cast<size_t>(std::stoull(text.substr(0, digits))) << shift->second;
}

namespace {

// The flags given as text, before conversion and checks.
struct Texts {
  std::string min_bytes = "8", max_bytes = "64M", ops = "allreduce", dtype = "float32";
  std::string redop = "sum", layer = "backend", peers = "auto", fusion_bytes = "4K";
  std::string fusion_layout = "separate";
};

void add_flags(CLI::App& app, Options& out, Texts& t) {
  app.add_option("-b,--min-bytes", t.min_bytes, "Smallest size (K/M/G suffixes; default 8)");
  app.add_option("-e,--max-bytes", t.max_bytes, "Largest size (default 64M)");
  app.add_option("-f,--step-factor", out.step_factor, "Size multiplier between rows (default 2)");
  app.add_option("-n,--iters", out.iters, "Timed iterations per row and round (default 20)");
  app.add_option("-w,--warmup", out.warmup, "Untimed iterations first (default 5)");
  app.add_option("--rounds", out.rounds, "Interleaved rounds per row; the best counts (3)");
  app.add_option("--op", t.ops, "allreduce, broadcast, allgather or all (default allreduce)");
  app.add_option("-d,--dtype", t.dtype, "float32, float64, int32 or int64 (default float32)");
  app.add_option("-o,--redop", t.redop, "sum, prod, min or max (default sum)");
  app.add_option("-r,--root", out.root, "Broadcast root (default 0)");
  app.add_option("--layer", t.layer, "backend (the hvd backend alone) or runtime (the public API)");
  app.add_option("--peers", t.peers, "mpi,gloo,none or auto (default: every one available)");
  app.add_option("--json", out.json_file, "Also write the results as JSON to this file");
  app.add_flag("-c,--check", out.check, "Fill with a pattern and count wrong elements");
  app.add_option("--scenario", out.scenario,
                 "fusion, cache, timeline or runtime-vs-raw (see below)");
  app.add_option("--fusion-tensors", out.fusion_tensors, "Scenario fusion: tensors (100)");
  app.add_option("--fusion-bytes", t.fusion_bytes, "Scenario fusion: bytes per tensor (4K)");
  app.add_option("--fusion-layout", t.fusion_layout,
                 "Scenario fusion: separate (each tensor its own allocation; default) or "
                 "contiguous (all in one)");
}

// Converts and checks the text flags; throws UsageError naming the flag.
void convert(const Texts& t, Options& out) {
  out.min_bytes = parse_bytes(t.min_bytes, "-b/--min-bytes");
  out.max_bytes = parse_bytes(t.max_bytes, "-e/--max-bytes");
  out.fusion_bytes = parse_bytes(t.fusion_bytes, "--fusion-bytes");
  if (t.fusion_layout != "separate" && t.fusion_layout != "contiguous") {
    throw UsageError(
        str_cat("--fusion-layout '", t.fusion_layout, "' is not separate or contiguous"));
  }
  out.fusion_contiguous = t.fusion_layout == "contiguous";
  out.ops = parse_ops(t.ops);
  if (kDtypes.count(t.dtype) == 0) {
    throw UsageError(str_cat("-d/--dtype '", t.dtype, "' is not float32, float64, int32 or int64"));
  }
  out.dtype = kDtypes.at(t.dtype);
  if (kRedops.count(t.redop) == 0) {
    throw UsageError(str_cat("-o/--redop '", t.redop, "' is not sum, prod, min or max"));
  }
  out.redop = kRedops.at(t.redop);
  if (t.layer != "backend" && t.layer != "runtime") {
    throw UsageError(str_cat("--layer '", t.layer, "' is not backend or runtime"));
  }
  out.layer = t.layer == "backend" ? Layer::kBackend : Layer::kRuntime;
  parse_peers(t.peers, out);
  if (!out.scenario.empty() && out.scenario != "fusion" && out.scenario != "cache" &&
      out.scenario != "timeline" && out.scenario != "runtime-vs-raw") {
    throw UsageError(str_cat("--scenario '", out.scenario,
                             "' is not fusion, cache, timeline or runtime-vs-raw"));
  }
  if (!out.scenario.empty()) out.layer = Layer::kRuntime;
  check_ranges(out);
}

}  // namespace

int parse_options(int argc, char** argv, Options& out) {
  CLI::App app(
      "hvd-bench: nccl-tests-style collective benchmark of libhvd against Open MPI and "
      "Gloo");
  app.footer(kLaunchHelp);
  Texts texts;
  add_flags(app, out, texts);
  try {
    app.parse(argc, argv);
    convert(texts, out);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help() << std::flush;
    return 0;
  } catch (const CLI::ParseError& e) {
    std::cerr << "hvd-bench: error: " << e.what() << " (see --help)" << std::endl;
    return 2;
  } catch (const UsageError& e) {
    std::cerr << "hvd-bench: error: " << e.what() << " (see --help)" << std::endl;
    return 2;
  }
  return -1;
}

}  // namespace hvd::bench
