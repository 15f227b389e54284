// SPDX-License-Identifier: Apache-2.0
#include "cli/predict_cmd.h"

#include <algorithm>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "cli/output_file.h"
#include "hvd/error.h"
#include "predict/cost_model.h"
#include "predict/network_fit.h"
#include "predict/train_input.h"

namespace hvd::launcher::cli {
namespace {

// The step's figures: from hvd-train's report of a 1-rank run, then the flags on top.
predict::Workload workload_of(const PredictOptions& o) {
  predict::Workload w;
  if (!o.train_file.empty()) {
    w = predict::workload_from_train(predict::read_json(o.train_file), o.train_file);
  }
  if (o.step_ms > 0) w.compute_ms = o.step_ms;
  if (o.gradient_mb > 0) w.gradient_bytes = o.gradient_mb * 1e6;
  if (o.tensors > 0) w.tensors = o.tensors;
  if (o.batch > 0) w.batch_per_rank = o.batch;
  w.backward_fraction = o.backward_fraction;
  w.threads_per_rank = o.threads_per_rank;
  if (w.compute_ms <= 0 || w.gradient_bytes <= 0) {
    throw UsageError("predict: give --train FILE (hvd-train JSON of a 1-rank run), or --step-ms "
                     "and --gradient-mb");
  }
  return w;
}

// A link from hvd-bench JSON, or from the two flags; says where it came from.
predict::Link link_of(const std::string& file, double latency_us, double gbps, const char* name,
                      double small_bytes, double focus_bytes, std::vector<std::string>& notes) {
  if (latency_us >= 0 && gbps > 0) {
    notes.push_back(str_cat(name, " link: ", latency_us, " us, ", gbps, " GB/s (given)"));
    return {latency_us, gbps};
  }
  if (file.empty()) return {};
  const predict::LinkFit fit =
      predict::fit_link(predict::read_json(file), file, small_bytes, focus_bytes);
  char text[512];
  std::snprintf(text, sizeof(text),
                "%s link: %.2f us, %.3f GB/s, fitted to %d allreduce sizes (%.0f to %.0f B, near "
                "the job's %.0f B) of %s (%d ranks on %d host(s), %s; worst error %.0f%%)",
                name, fit.link.latency_us, fit.link.bandwidth_gbps, fit.rows, fit.min_bytes,
                fit.max_bytes, focus_bytes, file.c_str(), fit.ranks, fit.hosts,
                fit.backend.c_str(), 100 * fit.worst_error);
  notes.push_back(text);
  return fit.link;
}

// libhvd's settings from the flags; both must be above 0 for the model to mean anything.
predict::Schedule schedule_of(const PredictOptions& o) {
  predict::Schedule s;
  s.fusion_bytes = o.fusion_threshold_mb * 1024 * 1024;
  s.cycle_ms = o.cycle_time_ms;
  s.hierarchical = o.hierarchical;
  if (s.fusion_bytes <= 0 || s.cycle_ms <= 0) {
    throw UsageError("predict: --fusion-threshold-mb and --cycle-time-ms must be above 0");
  }
  return s;
}

// The links within and between nodes (fitted or given, said in `notes`) and the node's cores;
// ranks_per_node is set per row by print_table().
predict::Cluster cluster_of(const PredictOptions& o, const predict::Workload& w,
                            const predict::Schedule& s, std::vector<std::string>& notes) {
  predict::Cluster c;
  // The job's largest allreduce: all its gradients fused, up to the fusion threshold.
  const double focus = std::min(w.gradient_bytes, s.fusion_bytes);
  c.intra = link_of(o.intra_file, o.intra_latency_us, o.intra_gbps, "intra-node", s.small_bytes,
                    focus, notes);
  c.inter = link_of(o.inter_file, o.inter_latency_us, o.inter_gbps, "inter-node", s.small_bytes,
                    focus, notes);
  c.cores_per_node = o.cores_per_node;
  return c;
}

void check_counts(const PredictOptions& o) {
  for (int n : o.nodes) {
    if (n < 1) throw UsageError(str_cat("--nodes: ", n, " is not a node count"));
  }
  for (int l : o.ranks_per_node) {
    if (l < 1) throw UsageError(str_cat("--ranks-per-node: ", l, " is not a rank count"));
  }
}

// A row with several nodes needs the network, one with several ranks per node the node's links.
void check_links_needed(const PredictOptions& o, const predict::Cluster& c) {
  const bool multi_node = std::any_of(o.nodes.begin(), o.nodes.end(), [](int n) { return n > 1; });
  const bool multi_local = std::any_of(o.ranks_per_node.begin(), o.ranks_per_node.end(),
                                       [](int l) { return l > 1; });
  if (multi_node && c.inter.bandwidth_gbps <= 0) {
    throw UsageError("predict: node counts above 1 need the network: --inter FILE (hvd-bench "
                     "across hosts) or --inter-latency-us and --inter-gbps");
  }
  if (multi_local && c.intra.bandwidth_gbps <= 0) {
    throw UsageError("predict: several ranks per node need the node's links: --intra FILE "
                     "(hvd-bench on one host) or --intra-latency-us and --intra-gbps");
  }
}

// Prints one line per (ranks per node, node count) and returns the same rows for --json.
nlohmann::json print_table(const PredictOptions& o, const predict::Workload& w,
                           const predict::Schedule& s, predict::Cluster c) {
  nlohmann::json rows = nlohmann::json::array();
  std::printf("%6s %6s %-19s %10s %11s %11s %11s %11s %12s %10s\n", "nodes", "ranks", "algorithm",
              "allreduces", "compute(ms)", "comm(ms)", "exposed(ms)", "step(ms)", "samples/s",
              "efficiency");
  for (int local : o.ranks_per_node) {
    c.ranks_per_node = local;
    for (const predict::Prediction& p : predict::predict(w, c, s, o.nodes)) {
      std::printf("%6d %6d %-19s %10d %11.3f %11.3f %11.3f %11.3f %12.1f %9.1f%%\n", p.nodes,
                  p.ranks, p.algorithm.c_str(), p.allreduces, p.compute_ms, p.comm_ms,
                  p.exposed_ms, p.step_ms, p.samples_per_sec, 100 * p.efficiency);
      rows.push_back({{"nodes", p.nodes}, {"ranks", p.ranks}, {"ranks_per_node", local},
                      {"algorithm", p.algorithm}, {"allreduces", p.allreduces},
                      {"compute_ms", p.compute_ms}, {"comm_ms", p.comm_ms},
                      {"exposed_ms", p.exposed_ms}, {"step_ms", p.step_ms},
                      {"samples_per_sec", p.samples_per_sec}, {"efficiency", p.efficiency}});
    }
  }
  return rows;
}

// Under the table: the step, where each link came from, and the model's assumptions.
void print_footer(const predict::Workload& w, const std::vector<std::string>& notes) {
  std::printf("step: %.3f ms compute (%.0f%% backward), %.1f MB of gradients in %d tensors, "
              "batch %d per rank\n",
              w.compute_ms, 100 * w.backward_fraction, w.gradient_bytes / 1e6, w.tensors,
              w.batch_per_rank);
  for (const std::string& n : notes) std::printf("%s\n", n.c_str());
  std::printf("assumptions:\n");
  for (const std::string& a : predict::assumptions()) std::printf("  - %s\n", a.c_str());
  std::fflush(stdout);
}

nlohmann::json json_of(const predict::Workload& w, const std::vector<std::string>& notes,
                       const nlohmann::json& rows) {
  return {{"tool", "hvdrun predict"},
          {"step", {{"compute_ms", w.compute_ms},
                    {"backward_fraction", w.backward_fraction},
                    {"gradient_bytes", w.gradient_bytes},
                    {"tensors", w.tensors},
                    {"batch_per_rank", w.batch_per_rank}}},
          {"links", notes},
          {"assumptions", predict::assumptions()},
          {"rows", rows}};
}

}  // namespace

CLI::App* register_predict(CLI::App& app, PredictOptions& o) {
  CLI::App* cmd = app.add_subcommand(
      "predict", "Predict step time and scaling efficiency at 1 to N nodes from a 1-rank run "
                 "and a measured network");
  auto* step = cmd->add_option_group("The step (from a 1-rank run)");
  step->add_option("--train", o.train_file, "hvd-train --json of a 1-rank run");
  step->add_option("--step-ms", o.step_ms, "Compute time of one step on one rank, ms")
      ->check(CLI::Range(1e-6, 1e9));
  step->add_option("--gradient-mb", o.gradient_mb, "Gradient bytes per step, MB (1e6)")
      ->check(CLI::Range(1e-9, 1e9));
  step->add_option("--tensors", o.tensors, "Gradient tensors per step")
      ->check(CLI::Range(1, 10000000));
  step->add_option("--batch", o.batch, "Samples per rank and step")->check(CLI::Range(1, 1000000000));
  step->add_option("--backward-fraction", o.backward_fraction,
                   "Part of the step that communication can overlap (0.67)")
      ->check(CLI::Range(0.0, 1.0));
  step->add_option("--threads-per-rank", o.threads_per_rank, "Cores one rank keeps busy (1)")
      ->check(CLI::Range(1, 1000000));
  auto* net = cmd->add_option_group("The network");
  net->add_option("--intra", o.intra_file, "hvd-bench --json run on one host (its links)");
  net->add_option("--inter", o.inter_file, "hvd-bench --json run across hosts (the network)");
  net->add_option("--intra-latency-us", o.intra_latency_us, "Or by hand: latency within a node")
      ->check(CLI::Range(0.0, 1e7));
  net->add_option("--intra-gbps", o.intra_gbps, "Bandwidth within a node, GB/s")
      ->check(CLI::Range(1e-6, 1e6));
  net->add_option("--inter-latency-us", o.inter_latency_us, "Latency between nodes")
      ->check(CLI::Range(0.0, 1e7));
  net->add_option("--inter-gbps", o.inter_gbps, "Bandwidth between nodes, GB/s (25 Gbit/s = 3.125)")
      ->check(CLI::Range(1e-6, 1e6));
  auto* shape = cmd->add_option_group("The job and libhvd's settings");
  shape->add_option("--ranks-per-node", o.ranks_per_node, "Ranks on each node; a list predicts each (1)")
      ->delimiter(',')
      ->check(CLI::Range(1, 1024));
  shape->add_option("--nodes", o.nodes, "Node counts to predict (1,2,4,8,16,32)")
      ->delimiter(',')
      ->check(CLI::Range(1, 100000));
  shape->add_option("--cores-per-node", o.cores_per_node, "Cores of a node (0: do not model sharing)")
      ->check(CLI::Range(0, 1000000));
  shape->add_option("--fusion-threshold-mb", o.fusion_threshold_mb, "HOROVOD_FUSION_THRESHOLD in MB (128)")
      ->check(CLI::Range(1e-3, 1e6));
  shape->add_option("--cycle-time-ms", o.cycle_time_ms, "HOROVOD_CYCLE_TIME (1)")
      ->check(CLI::Range(1e-3, 1e5));
  shape->add_flag("--hierarchical", o.hierarchical, "Hierarchical allreduce across nodes");
  cmd->add_option("--json", o.json_file, "Also write the prediction as JSON to this file");
  return cmd;
}

int run_predict(const PredictOptions& o, const EnvMap& /*env*/) {
  OutputFile json_out(o.json_file);
  const predict::Workload w = workload_of(o);
  const predict::Schedule s = schedule_of(o);
  std::vector<std::string> notes;
  predict::Cluster c = cluster_of(o, w, s, notes);
  check_counts(o);
  check_links_needed(o, c);
  const nlohmann::json rows = print_table(o, w, s, c);
  print_footer(w, notes);
  if (!o.json_file.empty()) json_out.write_all(json_of(w, notes, rows).dump(2) + "\n");
  return 0;
}

}  // namespace hvd::launcher::cli
