// SPDX-License-Identifier: Apache-2.0
#pragma once
// --max-restarts, with torchrun's rules (torch/distributed/elastic/agent/server/api.py):
//  - a failed attempt (some rank exited non-zero or died) is followed by a new one, until
//    max_restarts restarts have been used; the job's exit code is then the last failure's;
//  - a clean attempt (every rank exited 0) ends the job;
//  - a signal to hvdrun (SIGINT, SIGTERM, SIGHUP, SIGQUIT) ends it too: it is the user's or the
//    scheduler's decision, never a failure to recover from;
//  - so does a preemption notice (SIGUSR1/SIGUSR2) during the attempt: the job is about to be
//    stopped, and --requeue-on-signal (exec/requeue.h) decides what follows, not a restart.

#include <string>

#include "exec/run_outcome.h"

namespace hvd::launcher::exec {

/// Whether the job starts again after an attempt that ended as `outcome`, when
/// `restarts_done` of `max_restarts` restarts have been used.
bool should_restart(const RunOutcome& outcome, int restarts_done, int max_restarts);

/// hvdrun's line before restart number `restart` (1 first):
/// "restart 1 of 2 after rank 1 failed (exit 3)".
std::string restart_message(const RunOutcome& outcome, int restart, int max_restarts);

}  // namespace hvd::launcher::exec
