// SPDX-License-Identifier: Apache-2.0
#pragma once
// How one start of the job ended, beyond hvdrun's exit code: what the restart rules
// (exec/restart_policy.h) decide on.

#include <string>

namespace hvd::launcher::exec {

struct RunOutcome {
  int exit_code = 0;       // hvdrun's exit code, had this been the last attempt
  int interrupted_by = 0;  // the terminating signal hvdrun received; 0: none
  std::string failed;      // who failed first, e.g. "rank 1"; empty: nobody failed
  int failed_rank = -1;    // its rank number, when known
  std::string failure{};   // what happened, e.g. "rank 1 on node2 exited with code 3"
  bool notice = false;     // a preemption notice (SIGUSR1/SIGUSR2) came during the attempt
  bool notice_grace_overrun = false;  // ranks outran the checkpoint grace after it
};

}  // namespace hvd::launcher::exec
