// SPDX-License-Identifier: Apache-2.0
// hvd-preflight: the rank program of `hvdrun preflight`. Every rank reports its host, GPUs,
// the profile's NICs, its clock against rank 0's and its memory bandwidth; then libhvd
// allreduces are timed over all ranks, within each node and between node pairs, so that one
// slow node or link stands out. Rank 0 writes everything as JSON (report_json.h). Every step
// has a fixed size, so a small job takes seconds.

#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "files/atomic_file.h"
#include "hvd/error.h"
#include "hvd/hvd.h"
#include "hvd/str_cat.h"
#include "preflight/clock_skew.h"
#include "preflight/collective_timing.h"
#include "preflight/gpu_probe.h"
#include "preflight/memory_bandwidth.h"
#include "preflight/node_gpus.h"
#include "preflight/node_layout.h"
#include "preflight/report_json.h"

namespace hvd::preflight {
namespace {

constexpr int kClockRounds = 20;
constexpr int kExitFailure = 1;

struct Options {
  std::string out = "-";           // rank 0's report; "-" is stdout
  std::vector<std::string> nics;   // the profile's NICs
  int bytes = 4 << 20;             // the large allreduce
  int memory_ms = 200;
};

void check(const Status& status, const std::string& what) {
  if (!status.ok()) throw BackendError(str_cat(what, ": ", status.message()));
}

void copy_text(char* dest, size_t size, const std::string& text) {
  std::strncpy(dest, text.c_str(), size - 1);
  dest[size - 1] = '\0';
}

ProbeRecord probe_this_rank(const Options& o) {
  ProbeRecord r;
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  copy_text(r.host, sizeof(r.host), host);
  const GpuProbe gpus = probe_gpus();
  r.visible_gpus = gpus.count;
  r.node_gpus = count_node_gpus();
  copy_text(r.gpu_model, sizeof(r.gpu_model), gpus.model);
  copy_text(r.gpu_id, sizeof(r.gpu_id), gpus.id);
  r.rank = rank();
  r.nic_count = static_cast<int32_t>(std::min<size_t>(o.nics.size(), kMaxNics));
  for (int i = 0; i < r.nic_count; ++i) {
    std::error_code ec;
    if (std::filesystem::exists("/sys/class/net/" + o.nics[i], ec)) r.nics_present |= 1U << i;
  }
  return r;
}

std::vector<ProbeRecord> gather_records(const ProbeRecord& mine) {
  TensorView view{const_cast<ProbeRecord*>(&mine), DataType::kUInt8,
                  {static_cast<int64_t>(sizeof(ProbeRecord))}, {}};
  Handle h = allgather_async("preflight.records", view);
  check(h.wait(), "allgather of the ranks' records");
  std::vector<ProbeRecord> records(size());
  HVD_CHECK(h.output().size() == records.size() * sizeof(ProbeRecord), "allgather size");
  std::memcpy(records.data(), h.output().data(), h.output().size());
  return records;
}

// Times every set in turn (one at a time, so that they do not share the network), then gives
// every rank the leaders' figures with one allreduce.
std::vector<CollectiveTiming> time_sets(const std::vector<MeasuredSet>& sets, const char* kind,
                                        int bytes) {
  std::vector<double> figures(3 * sets.size(), 0.0);
  for (size_t s = 0; s < sets.size(); ++s) {
    int id = 0;
    if (static_cast<int>(sets[s].ranks.size()) != size()) {  // the world is set 0 already
      check(add_process_set(sets[s].ranks, &id), "add_process_set");
    }
    if (process_set_rank(id) >= 0) {
      const CollectiveTiming t = time_allreduce(id, static_cast<int>(sets[s].ranks.size()),
                                                str_cat(kind, s), bytes);
      if (process_set_rank(id) == 0) {  // one writer per set: the allreduce below adds them up
        figures[3 * s] = t.latency_us;
        figures[3 * s + 1] = t.busbw_gbps;
        figures[3 * s + 2] = t.bytes;
      }
    }
    check(barrier(0), "barrier");
    if (id != 0) check(remove_process_set(id), "remove_process_set");
  }
  std::vector<CollectiveTiming> timings(sets.size());
  if (sets.empty()) return timings;
  TensorView view{figures.data(), DataType::kFloat64, {static_cast<int64_t>(figures.size())}, {}};
  check(allreduce_async(str_cat("preflight.figures.", kind), view, view, ReduceOp::kSum).wait(),
        "allreduce of the figures");
  for (size_t s = 0; s < sets.size(); ++s) {
    timings[s] = {figures[3 * s], figures[3 * s + 1], figures[3 * s + 2]};
  }
  return timings;
}

Measurements measure(const Options& o) {
  const auto start = std::chrono::steady_clock::now();
  Measurements m;
  m.nic_names = o.nics;
  if (m.nic_names.size() > static_cast<size_t>(kMaxNics)) m.nic_names.resize(kMaxNics);
  ProbeRecord mine = probe_this_rank(o);
  check(barrier(0), "barrier");  // a node's ranks stream memory at once: the node's figure
  mine.memory_gbps = triad_gbps(std::chrono::milliseconds(o.memory_ms));
  const ClockSkew skew = measure_clock_skew(kClockRounds);
  mine.clock_offset_ms = skew.offset_ms;
  mine.clock_rtt_ms = skew.rtt_ms;
  m.ranks = gather_records(mine);
  std::vector<std::string> hosts;
  for (const ProbeRecord& r : m.ranks) hosts.emplace_back(r.host);
  m.nodes = group_by_host(hosts);
  m.all = time_allreduce(0, size(), "all", o.bytes);
  m.node_sets = node_sets(m.nodes);
  m.node_timings = time_sets(m.node_sets, "node", o.bytes);
  m.link_sets = link_sets(m.nodes);
  m.link_timings = time_sets(m.link_sets, "link", o.bytes);
  m.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return m;
}

void write_report(const Options& o, const Measurements& m) {
  const std::string text = to_json(m).dump(2) + "\n";
  if (o.out == "-") {
    std::cout << text << std::flush;
  } else {
    files::write_file_atomically(o.out, text);
  }
}

}  // namespace
}  // namespace hvd::preflight

int main(int argc, char** argv) {
  using namespace hvd::preflight;
  CLI::App app{"hvd-preflight: the rank program of `hvdrun preflight` (run it through hvdrun)",
               "hvd-preflight"};
  Options o;
  app.add_option("--out", o.out, "Rank 0 writes the JSON report here; - is stdout (-)");
  app.add_option("--nics", o.nics, "NICs to look for in /sys/class/net")->delimiter(',');
  app.add_option("--bytes", o.bytes, "Size of the timed large allreduce (4194304)")
      ->check(CLI::Range(4, 1 << 30));
  app.add_option("--memory-ms", o.memory_ms, "How long the memory bandwidth test runs (200)")
      ->check(CLI::Range(1, 10000));
  CLI11_PARSE(app, argc, argv);
  const hvd::Status init = hvd::init();
  if (!init.ok()) {
    std::cerr << "hvd-preflight: error: init: " << init.message() << std::endl;
    return kExitFailure;
  }
  try {
    const Measurements m = measure(o);
    if (hvd::rank() == 0) write_report(o, m);
  } catch (const std::exception& e) {
    std::cerr << "hvd-preflight: error: rank " << hvd::rank() << ": " << e.what() << std::endl;
    return kExitFailure;
  }
  const hvd::Status done = hvd::shutdown();
  if (!done.ok()) {
    std::cerr << "hvd-preflight: error: shutdown: " << done.message() << std::endl;
    return kExitFailure;
  }
  return 0;
}
