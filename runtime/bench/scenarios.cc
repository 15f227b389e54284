// SPDX-License-Identifier: Apache-2.0
#include "bench/scenarios.h"

#include <cstdio>
#include <thread>

#include "bench/hvd_runtime_impl.h"
#include "env/env.h"
#include "hvd/env_keys.h"
#include "hvd/hvd.h"
#include "hvd/str_cat.h"

namespace hvd::bench {
namespace {

// The tunables this process runs with, so a reader can tell the fused and unfused runs apart.
nlohmann::json runtime_env() {
  const EnvMap& env = process_env();
  nlohmann::json j = nlohmann::json::object();
  for (const char* key : {env::kFusionThreshold, env::kCycleTime, env::kTimeline, env::kBackend,
                          env::kRingTransport}) {
    if (env_has(env, key)) j[key] = env.at(key);
  }
  return j;
}

std::string us(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.2f us", v);
  return buf;
}

// One float32 tensor per name, `bytes` each, each its own allocation or all views of one
// (`contiguous`); kept alive while the step runs.
struct Tensors {
  std::vector<std::string> names;
  std::vector<std::vector<float>> data;
  std::vector<TensorView> views;

  Tensors(const std::string& prefix, int n, size_t bytes, bool contiguous = false) {
    const size_t count = bytes / sizeof(float);
    const auto tensors = static_cast<size_t>(n);
    for (size_t i = 0; i < tensors; ++i) names.push_back(str_cat(prefix, i));
    if (contiguous) {
      data.emplace_back(count * tensors, 0.0f);
    } else {
      for (size_t i = 0; i < tensors; ++i) data.emplace_back(count, 0.0f);
    }
    for (size_t i = 0; i < tensors; ++i) {
      float* at = contiguous ? data[0].data() + i * count : data[i].data();
      views.push_back(TensorView{at, DataType::kFloat32, {static_cast<int64_t>(count)}, Device{}});
    }
  }
};

// A training step's shape: every tensor of `t` enqueued, then each waited on.
RunOnce each_then_wait(Tensors& t, const char* what) {
  return [&t, what] {
    std::vector<Handle> handles;
    for (size_t i = 0; i < t.names.size(); ++i) {
      handles.push_back(hvd::allreduce_async(t.names[i], t.views[i], t.views[i], ReduceOp::kSum));
    }
    for (const Handle& h : handles) throw_if_failed(h.wait(), what);
  };
}

// The one tensor of `t`, allreduced and waited on.
RunOnce one_tensor(Tensors& t, const char* what) {
  return [&t, what] {
    throw_if_failed(
        hvd::allreduce_async(t.names[0], t.views[0], t.views[0], ReduceOp::kSum).wait(), what);
  };
}

double time_mpi_allreduce(const Options& o, Impl& mpi, size_t bytes) {
  Buffers b;
  b.dtype = DataType::kFloat32;
  b.count = bytes / sizeof(float);
  b.out.assign(b.count * sizeof(float), 0);
  const RunOnce run = mpi.prepare(Op::kAllreduce, "", b, ReduceOp::kSum, 0);
  return time_best(o, mpi, run);
}

}  // namespace

nlohmann::json run_fusion(const Options& o, Impl& runtime, Impl* mpi, std::ostream* out) {
  Tensors each("fusion/", o.fusion_tensors, o.fusion_bytes, o.fusion_contiguous);
  const RunOnce step = each_then_wait(each, "fusion step");
  Tensors grouped("fusion-group/", o.fusion_tensors, o.fusion_bytes, o.fusion_contiguous);
  const RunOnce grouped_step = [&grouped] {
    for (const Handle& h : hvd::grouped_allreduce_async(grouped.names, grouped.views, grouped.views,
                                                        ReduceOp::kSum)) {
      throw_if_failed(h.wait(), "grouped fusion step");
    }
  };
  const size_t total =
      o.fusion_bytes / sizeof(float) * sizeof(float) * static_cast<size_t>(o.fusion_tensors);
  // The floor fusion aims at: the same bytes as one tensor, so one allreduce with no packing.
  Tensors single("fusion-single/", 1, total);
  const RunOnce single_step = one_tensor(single, "single-tensor step");
  // Where the step's time over one tensor goes: the same step with 4-byte tensors against one
  // tensor of their bytes costs the per-tensor work alone (enqueue, cycle, completion); what
  // the full step has on top of that and of one big tensor is the cost of its pieces.
  Tensors tiny("fusion-tiny/", o.fusion_tensors, sizeof(float));
  const RunOnce tiny_step = each_then_wait(tiny, "tiny fusion step");
  Tensors tiny_single("fusion-tiny-single/", 1, sizeof(float) * o.fusion_tensors);
  const RunOnce tiny_single_step = one_tensor(tiny_single, "tiny single-tensor step");
  nlohmann::json j = {{"tensors", o.fusion_tensors},
                      {"tensor_bytes", o.fusion_bytes},
                      {"layout", o.fusion_contiguous ? "contiguous" : "separate"},
                      {"env", runtime_env()}};
  const double step_us = time_best(o, runtime, step);
  const double grouped_us = time_best(o, runtime, grouped_step);
  const double single_us = time_best(o, runtime, single_step);
  const double per_tensor_us =
      (time_best(o, runtime, tiny_step) - time_best(o, runtime, tiny_single_step)) /
      o.fusion_tensors;
  const double pieces_us = step_us - single_us - per_tensor_us * o.fusion_tensors;
  j["runtime_step_us"] = step_us;
  j["runtime_grouped_step_us"] = grouped_us;
  j["runtime_single_tensor_us"] = single_us;
  j["ratio_step_vs_single_tensor"] = step_us / single_us;
  j["per_tensor_us"] = per_tensor_us;
  j["pieces_us"] = pieces_us;
  std::string line =
      str_cat("# scenario fusion: step of ", o.fusion_tensors, " x ", o.fusion_bytes, " B",
              o.fusion_contiguous ? " (views of one buffer)" : "", ": runtime ", us(step_us),
              " (grouped ", us(grouped_us), "; one tensor of ", total, " B ", us(single_us),
              ", ratio ", step_us / single_us, "); over one tensor: ", o.fusion_tensors, " x ",
              us(per_tensor_us), " per tensor + ", us(pieces_us), " for the pieces");
  if (mpi != nullptr) {
    const double mpi_us = time_mpi_allreduce(o, *mpi, total);
    j["mpi_concatenated_us"] = mpi_us;
    j["ratio_step_vs_mpi"] = step_us / mpi_us;
    line +=
        str_cat("; one MPI_Allreduce of ", total, " B ", us(mpi_us), "; ratio ", step_us / mpi_us);
  }
  if (out != nullptr) *out << line << "\n" << std::flush;
  return j;
}

nlohmann::json run_cache(const Options& o, Impl& runtime, Impl* mpi, std::ostream* out) {
  Tensors one("cache/", 1, 8);
  const RunOnce op = one_tensor(one, "cache scenario");
  // The same, but polled instead of waited on: the background loop runs every cycle and hands
  // the result back, the path a wait() took before callers ran cycles themselves (issue 14).
  const RunOnce polled = [&one] {
    const Handle h = hvd::allreduce_async(one.names[0], one.views[0], one.views[0], ReduceOp::kSum);
    while (!h.poll()) std::this_thread::yield();
    throw_if_failed(h.wait(), "cache scenario (polled)");
  };
  nlohmann::json j = {{"bytes", 8}, {"env", runtime_env()}};
  const double runtime_us = time_best(o, runtime, op);
  const double polled_us = time_best(o, runtime, polled);
  j["runtime_us"] = runtime_us;
  j["loop_cycle_us"] = polled_us;
  std::string line = str_cat(
      "# scenario cache: 8-byte allreduce served from the response cache: ", us(runtime_us),
      " (cycle on the waiting thread), ", us(polled_us), " (polled: cycle on the background loop)");
  if (mpi != nullptr) {
    const double mpi_us = time_mpi_allreduce(o, *mpi, 8);
    j["mpi_us"] = mpi_us;
    j["ratio"] = runtime_us / mpi_us;
    line += str_cat("; MPI_Allreduce ", us(mpi_us), "; ratio ", runtime_us / mpi_us);
  }
  if (out != nullptr) *out << line << "\n" << std::flush;
  return j;
}

nlohmann::json summarize_runtime_vs_raw(const OpResult& allreduce, std::ostream* out) {
  nlohmann::json rows = nlohmann::json::array();
  for (const Row& row : allreduce.rows) {
    const auto mpi = row.impls.find("mpi");
    if (mpi == row.impls.end()) continue;
    const double runtime_us = row.impls.at("hvd").time_us;
    const double ratio = runtime_us / mpi->second.time_us;
    rows.push_back({{"bytes", row.bytes},
                    {"runtime_us", runtime_us},
                    {"mpi_us", mpi->second.time_us},
                    {"ratio", ratio}});
    if (out != nullptr) {
      *out << "# scenario runtime-vs-raw: " << row.bytes << " B: runtime/MPI_Allreduce time "
           << ratio << "\n";
    }
  }
  return {{"rows", rows}, {"env", runtime_env()}};
}

}  // namespace hvd::bench
