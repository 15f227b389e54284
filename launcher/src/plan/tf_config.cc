// SPDX-License-Identifier: Apache-2.0
#include "plan/tf_config.h"

#include <nlohmann/json.hpp>

#include "hvd/error.h"

namespace hvd::launcher::plan {
namespace {

constexpr int kTfPortBase = 10000;
constexpr int kTfJobBlocks = 150;  // (20000 - 10000) / 64 blocks fit below MASTER_PORT's range

}  // namespace

std::string tf_config_json(const std::vector<std::string>& workers, int index) {
  const nlohmann::json config = {{"cluster", {{"worker", workers}}},
                                 {"task", {{"type", "worker"}, {"index", index}}}};
  return config.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

uint16_t tf_port_for(const std::string& job_id, int local_rank) {
  if (local_rank < 0 || local_rank >= kTfMaxRanksPerNode) {
    throw UsageError(str_cat("--tf-config: at most ", kTfMaxRanksPerNode,
                             " ranks per node get a TF_CONFIG port; this step has local rank ",
                             local_rank, " (lower -np or use more nodes)"));
  }
  long id = 0;
  for (char c : job_id) {
    if (c >= '0' && c <= '9') id = (id * 10 + (c - '0')) % kTfJobBlocks;
  }
  return static_cast<uint16_t>(kTfPortBase + id * kTfMaxRanksPerNode + local_rank);
}

}  // namespace hvd::launcher::plan
