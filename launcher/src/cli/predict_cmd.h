// SPDX-License-Identifier: Apache-2.0
#pragma once
// `hvdrun predict`: how far will this training scale? From a short measured run (hvd-train
// JSON, or the step's figures given by hand) and a measured network (hvd-bench JSON, or
// latency and bandwidth given by hand), a table of the predicted step time, throughput and
// scaling efficiency at each node count (predict/cost_model.h states the assumptions).

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "config/env_map.h"

namespace hvd::launcher::cli {

struct PredictOptions {
  std::string train_file;         // hvd-train JSON of a 1-rank run
  double step_ms = 0;             // or by hand
  double gradient_mb = 0;
  int tensors = 0;
  int batch = 0;
  double backward_fraction = 2.0 / 3.0;
  int threads_per_rank = 1;
  std::string intra_file;         // hvd-bench JSON, one host
  std::string inter_file;         // hvd-bench JSON, several hosts
  double intra_latency_us = -1, intra_gbps = -1, inter_latency_us = -1, inter_gbps = -1;
  std::vector<int> ranks_per_node = {1};
  std::vector<int> nodes = {1, 2, 4, 8, 16, 32};
  int cores_per_node = 0;
  double fusion_threshold_mb = 128;
  double cycle_time_ms = 1;
  bool hierarchical = false;
  std::string json_file;          // also write the table here
};

CLI::App* register_predict(CLI::App& app, PredictOptions& options);

/// Prints the table; returns 0. Throws UsageError for missing or contradictory inputs and
/// ConfigError for a JSON file that cannot be read.
int run_predict(const PredictOptions& options, const EnvMap& env);

}  // namespace hvd::launcher::cli
