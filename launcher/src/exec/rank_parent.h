// SPDX-License-Identifier: Apache-2.0
#pragma once
// `hvdrun exec-rank` stays the rank's parent instead of exec'ing it, so that something is left
// on the node, after the rank ends however it ends, to remove the shared-memory segments the
// rank created (/dev/shm/hvd-<run id>-<rank pid>-*, see exec/shm_cleanup.h): in local mode
// hvdrun does that, but in a Slurm step the other nodes have no hvdrun.
//
// Signals: Slurm signals every process of the step (scancel, srun's forwarding of Ctrl-C, the
// time limit), so the rank gets each signal itself. exec-rank blocks the ones that would end it
// (SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2) and forwards none: no double delivery,
// and it outlives the rank long enough to clean up. The rank gets the signal mask exec-rank
// started with. Only SIGKILL (Slurm's last resort after KillWait) ends exec-rank first.
// SIGUSR1 and SIGUSR2 (preemption notices) are also handed to `on_notice` while it waits, which
// creates the rank's checkpoint-notice file (proc/checkpoint_file.h).
//
// A stopped rank (SIGSTOP, Ctrl-Z) is seen here and nowhere else on its node: while it stays
// stopped, RankWatch::while_stopped is called, after a grace (a debugger's stop a moment ago is
// not a stall) and then periodically, so that hvdrun on another node hears of it (exec-rank
// reports a stall through the run's store, as libhvd's coordinator does).

#include <signal.h>
#include <sys/types.h>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace hvd::launcher::exec {

/// What the parent wants to hear of its rank besides its end.
struct RankWatch {
  std::function<void(pid_t)> on_started;  // once the child executes `program`
  std::function<void()> while_stopped;    // see above; empty: stops are not watched
  std::chrono::milliseconds stop_grace{3000};
  std::chrono::milliseconds stop_repeat{60000};
};

/// Runs `program` (a path) with `argv` and the environment `envp` ("NAME=value") as a child,
/// waits for it, calls after_exit(child pid), and ends this process as the child ended
/// (exec/status_mirror.h). Returns only by throwing LaunchError (naming `program`) when the
/// child could not be started or could not execute it. `on_notice` (may be empty) is called
/// with each SIGUSR1/SIGUSR2 that arrives while the child runs.
[[noreturn]] void run_as_parent(const std::string& program, std::vector<std::string> argv,
                                std::vector<std::string> envp,
                                const std::function<void(pid_t)>& after_exit,
                                const std::function<void(int)>& on_notice = {},
                                const RankWatch& watch = {});

/// The signals run_as_parent() keeps blocked while it waits.
sigset_t signals_held_while_waiting();

}  // namespace hvd::launcher::exec
