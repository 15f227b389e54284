// SPDX-License-Identifier: Apache-2.0
// hvd-bench: nccl-tests-style table of libhvd's collectives beside Open MPI's and Gloo's on the
// same ranks in the same run, plus the runtime scenarios. See --help and README "Benchmarks".

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <memory>

#include "backends/registry.h"
#include "bench/bench_options.h"
#include "bench/hvd_backend_impl.h"
#include "bench/hvd_runtime_impl.h"
#include "bench/peers.h"
#include "bench/report.h"
#include "bench/scenarios.h"
#include "env/env.h"
#include "hvd/error.h"
#include "hvd/hvd.h"

namespace hvd::bench {
namespace {

struct Setup {
  std::unique_ptr<Impl> hvd;  // outlives the peers: its store may own MPI
  Peers peers;
  RunInfo info;
  int rank = 0;
};

Setup set_up(const Options& o) {
  Setup s;
  const EnvMap& env = process_env();
  bootstrap::WorldInfo world;
  bootstrap::KvStore* kv = nullptr;
  if (o.layer == Layer::kBackend) {
    auto backend = std::make_unique<HvdBackendImpl>(env);
    world = backend->world();
    kv = &backend->store();
    s.info.backend = backend->backend_name();
    s.hvd = std::move(backend);
  } else {
    s.hvd = std::make_unique<HvdRuntimeImpl>();
    world.rank = hvd::rank();
    world.size = hvd::size();
    world.cross_size = hvd::cross_size();
    const std::string host = backends::choose_host_backend(env);
    s.info.backend = "runtime over " +
                     (host == "mpi" ? host : "ring/" + backends::choose_ring_transport(env, world));
  }
  s.rank = world.rank;
  s.info.ranks = world.size;
  s.info.hosts = world.cross_size;
  s.peers = make_peers(o, kv, world);
  s.info.impls.push_back("hvd");
  for (const auto& p : s.peers.impls) s.info.impls.push_back(p->name());
  s.info.notes = s.peers.notes;
  return s;
}

Impl* find_peer(Setup& s, const std::string& name) {
  for (const auto& p : s.peers.impls) {
    if (p->name() == name) return p.get();
  }
  return nullptr;
}

// Elements --check found wrong, over every row and implementation.
int64_t wrong_total(const std::vector<OpResult>& results) {
  int64_t total = 0;
  for (const OpResult& r : results) {
    for (const Row& row : r.rows) {
      for (const auto& [name, impl] : row.impls) total += std::max<int64_t>(impl.wrong, 0);
    }
  }
  return total;
}

// Returns the number of wrong elements --check found (0 without --check).
int64_t run(const Options& o) {
  Setup s = set_up(o);
  std::ostream* out = s.rank == 0 ? &std::cout : nullptr;
  if (out != nullptr) print_run_header(*out, o, s.info);
  nlohmann::json scenarios = nlohmann::json::object();
  std::vector<OpResult> results;
  if (o.scenario == "fusion") {
    scenarios["fusion"] = run_fusion(o, *s.hvd, find_peer(s, "mpi"), out);
  } else if (o.scenario == "cache") {
    scenarios["cache"] = run_cache(o, *s.hvd, find_peer(s, "mpi"), out);
  } else if (o.scenario == "timeline") {
    scenarios["timeline"] = run_timeline(o, *s.hvd, out);
  } else {
    std::vector<Impl*> impls{s.hvd.get()};
    for (const auto& p : s.peers.impls) impls.push_back(p.get());
    const std::vector<Op> ops = o.scenario.empty() ? o.ops : std::vector<Op>{Op::kAllreduce};
    for (const Op op : ops) {
      if (out != nullptr) print_op_header(*out, op, s.info);
      OpResult result{op, {}};
      for (const size_t bytes : row_sizes(o, op, s.info.ranks)) {
        result.rows.push_back(measure_row(o, op, bytes, s.rank, s.info.ranks, impls));
        if (out != nullptr) print_row(*out, o, result.rows.back(), s.info);
      }
      results.push_back(std::move(result));
    }
    if (o.scenario == "runtime-vs-raw") {
      scenarios["runtime_vs_raw"] = summarize_runtime_vs_raw(results.front(), out);
    }
  }
  if (s.rank == 0 && !o.json_file.empty()) {
    write_json(o.json_file, to_json(o, s.info, results, scenarios));
  }
  s.hvd->barrier();
  s.peers.impls.clear();  // before hvd: under mpirun its store ends MPI
  return wrong_total(results);
}

int exit_code_for(ErrorCode code) {
  switch (code) {
    case ErrorCode::kUsage:
      return 2;
    case ErrorCode::kConfig:
      return 3;
    case ErrorCode::kInternal:
      return 70;
    default:
      return 1;
  }
}

}  // namespace
}  // namespace hvd::bench

int main(int argc, char** argv) {
  hvd::bench::Options options;
  const int parsed = hvd::bench::parse_options(argc, argv, options);
  if (parsed >= 0) return parsed;
  try {
    const int64_t wrong = hvd::bench::run(options);
    if (wrong > 0) {
      // Like nccl-tests: a wrong result fails the run, whatever the timings.
      std::cerr << "hvd-bench: error: --check found " << wrong << " wrong elements" << std::endl;
      return 1;
    }
  } catch (const hvd::Error& e) {
    std::cerr << "hvd-bench: error: " << e.what() << std::endl;
    return hvd::bench::exit_code_for(e.code());
  } catch (const std::exception& e) {
    // Not an hvd::Error: a bug here (docs/errors.md), as hvdrun and hvd-train report it.
    std::cerr << "hvd-bench: internal error: " << e.what() << std::endl;
    return 70;
  }
  return 0;
}
