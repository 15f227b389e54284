// SPDX-License-Identifier: Apache-2.0
#include "exec/restart_policy.h"

#include "hvd/str_cat.h"

namespace hvd::launcher::exec {

bool should_restart(const RunOutcome& outcome, int restarts_done, int max_restarts) {
  if (outcome.interrupted_by != 0 || outcome.notice) return false;
  if (outcome.failed.empty() && outcome.exit_code == 0) return false;
  return restarts_done < max_restarts;
}

std::string restart_message(const RunOutcome& outcome, int restart, int max_restarts) {
  const std::string who = outcome.failed.empty() ? std::string("the job") : outcome.failed;
  return str_cat("restart ", restart, " of ", max_restarts, " after ", who, " failed (exit ",
                 outcome.exit_code, ")");
}

}  // namespace hvd::launcher::exec
