// SPDX-License-Identifier: Apache-2.0
#pragma once
// Guard: a small process that outlives hvdrun just long enough to kill the ranks' process
// groups when hvdrun dies without doing it itself (kill -9, OOM killer, a crash).
//
// Why: PR_SET_PDEATHSIG reaches only hvdrun's direct children. `hvdrun -- sh -c 'sleep 301;
// true'` left the sleeps running with PPID 1 after kill -9 of hvdrun, and a subreaper does not
// help once hvdrun itself is gone. cgroups would, but are not delegated to users on most
// clusters.
//
// Design:
//  - Guard::start() forks (twice, so that the guard is not hvdrun's child: it never shows up in
//    hvdrun's waitpid and leaves no zombie) before any thread exists. The guard calls setsid, so
//    a signal to hvdrun's process group or terminal does not reach it; it gets /dev/null as
//    stdin/stdout/stderr and closes every other descriptor, so it never holds the user's pipes
//    open (`hvdrun ... | tee` ends when hvdrun does).
//  - hvdrun writes one short line per event to a pipe: "+PGID" when it starts a rank (each leads
//    its own group), "-PGID" when the rank has exited and its group was killed, "sRUNID" for the
//    run's /dev/shm segments. Lines are shorter than PIPE_BUF, so each write is atomic, and the
//    write end is non-blocking: a stopped guard can never stall hvdrun.
//  - When the pipe reaches EOF, hvdrun has exited, however it did. The guard SIGKILLs every group
//    still registered, removes /dev/shm/hvd-RUNID-* (shm_cleanup.h) and exits. After a normal end
//    nothing is registered any more, so it only finds the segments already gone.
//  - The guard's own loop uses no allocation and no stdio, only read/kill/unlink system calls,
//    so forking it from a threaded process would be safe too.
// Pid reuse: a group is deregistered as soon as hvdrun has seen its leader exit (before reaping
// it, see supervisor.cc), so what the guard kills are groups whose leader was alive, or a zombie
// holding the pid, when hvdrun died; it acts within moments of that.
// Not covered: a process that left its rank's group (setsid, setpgid) escapes, as it escapes
// the supervisor's killpg; only a cgroup would catch it.

#include <sys/types.h>

#include <string>

#include "net/socket.h"

namespace hvd::launcher::exec {

class Guard {
 public:
  /// No guard: every call does nothing (tests, --dry-run).
  Guard() = default;
  /// Forks the guard. Call before threads start, after SIGPIPE is ignored
  /// (block_forwarded_signals). Throws LaunchError if pipe or fork fails.
  static Guard start();

  Guard(Guard&&) noexcept = default;
  Guard& operator=(Guard&&) noexcept = default;
  /// finish()es.
  ~Guard();

  /// The group `pgid` (a rank's, just started) is killed if hvdrun dies.
  void watch_group(pid_t pgid);
  /// The group was killed and its leader is about to be reaped: the guard forgets it.
  void forget_group(pid_t pgid);
  /// /dev/shm/hvd-RUN_ID-* are removed when the job ends (here, by finish()) or hvdrun dies.
  void watch_run_segments(const std::string& run_id);
  /// The run (one attempt of a restarted job) is over: removes its segments now; the guard goes
  /// on watching groups, and the next run's segments once watch_run_segments() names them.
  void end_run_segments();
  /// The job is over: removes the run's segments now and lets the guard exit.
  void finish();

 private:
  void send(const std::string& line);

  net::Fd pipe_;  // write end; the guard holds the read end
  std::string run_id_;
};

}  // namespace hvd::launcher::exec
