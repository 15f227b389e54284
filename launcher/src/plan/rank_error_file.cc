// SPDX-License-Identifier: Apache-2.0
#include "plan/rank_error_file.h"

#include "hvd/env_keys.h"
#include "hvd/str_cat.h"

namespace hvd::launcher::plan {

std::string rank_error_file(const std::string& dir, int attempt, int rank) {
  return str_cat(dir, "/attempt_", attempt, ".rank_", rank, ".json");
}

std::string task_error_file(const EnvMap& inherited, int rank) {
  const auto dir = inherited.find(env::kRankErrorDir);
  if (dir == inherited.end() || dir->second.empty()) return {};
  const auto count = inherited.find(env::kRestartCount);
  const std::string attempt = count == inherited.end() ? "0" : count->second;
  return str_cat(dir->second, "/attempt_", attempt, ".rank_", rank, ".json");
}

}  // namespace hvd::launcher::plan
