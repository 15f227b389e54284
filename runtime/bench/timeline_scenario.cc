// SPDX-License-Identifier: Apache-2.0
// --scenario timeline: what recording a timeline costs the fused step. Separate processes with
// and without HOROVOD_TIMELINE differ in more than the timeline (placement, memory layout, the
// load of the moment), which on a busy machine swamps a few percent; here one process times
// the step in rounds that alternate off and on (hvd::start_timeline()/stop_timeline() between
// them), so that both see the same machine, and keeps the best round of each.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <limits>

#include "bench/hvd_runtime_impl.h"
#include "bench/scenarios.h"
#include "hvd/hvd.h"
#include "hvd/str_cat.h"
#include "timeline_merge/timeline_merge.h"

namespace hvd::bench {
namespace {

// The same on every rank (they share the command line), so that rank 0's merge finds them.
std::string timeline_base(const Options& o) {
  if (!o.json_file.empty()) return o.json_file + ".timeline.json";
  return (std::filesystem::temp_directory_path() / "hvd-bench-timeline.json").string();
}

}  // namespace

nlohmann::json run_timeline(const Options& o, Impl& runtime, std::ostream* out) {
  std::vector<std::string> names;
  std::vector<std::vector<float>> data;
  std::vector<TensorView> views;
  for (int i = 0; i < o.fusion_tensors; ++i) {
    names.push_back(str_cat("timeline/", i));
    data.emplace_back(o.fusion_bytes / sizeof(float), 0.0f);
  }
  for (auto& d : data) {
    views.push_back(
        TensorView{d.data(), DataType::kFloat32, {static_cast<int64_t>(d.size())}, Device{}});
  }
  const RunOnce step = [&] {
    std::vector<Handle> handles;
    for (size_t i = 0; i < names.size(); ++i) {
      handles.push_back(hvd::allreduce_async(names[i], views[i], views[i], ReduceOp::kSum));
    }
    for (const Handle& h : handles) throw_if_failed(h.wait(), "timeline step");
  };
  Options one_round = o;
  one_round.rounds = 1;
  const std::string base = timeline_base(o);
  double off = std::numeric_limits<double>::max(), on = off;
  for (int round = 0; round < o.rounds; ++round) {
    off = std::min(off, time_round(one_round, runtime, step));
    throw_if_failed(hvd::start_timeline(base), "start_timeline");
    on = std::min(on, time_round(one_round, runtime, step));
    throw_if_failed(hvd::stop_timeline(), "stop_timeline");
  }
  // Rank 0 merges after stop_timeline()'s barrier: wait for it before removing the inputs.
  throw_if_failed(hvd::barrier(), "barrier");
  std::remove(core::timeline_rank_path(base, hvd::rank()).c_str());
  if (hvd::rank() == 0) std::remove(base.c_str());
  nlohmann::json j = {{"tensors", o.fusion_tensors},
                      {"tensor_bytes", o.fusion_bytes},
                      {"step_us", off},
                      {"step_timeline_us", on},
                      {"ratio_timeline_on_vs_off", on / off}};
  if (out != nullptr) {
    char line[200];
    std::snprintf(line, sizeof(line),
                  "# scenario timeline: step of %d x %zu B: %.2f us without, %.2f us with a "
                  "timeline (best of %d alternating rounds); ratio %.3f\n",
                  o.fusion_tensors, o.fusion_bytes, off, on, o.rounds, on / off);
    *out << line << std::flush;
  }
  return j;
}

}  // namespace hvd::bench
