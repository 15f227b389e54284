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
//  - One short line per event goes down a pipe: "+PGID" from a rank itself, between fork and
//    exec (each rank leads its own group), "-PGID" from hvdrun when the rank has exited and its
//    group was killed, "sRUNID" for the run's /dev/shm segments. Lines are shorter than
//    PIPE_BUF, so each write is atomic, and the write end is non-blocking: a stopped guard can
//    never stall hvdrun or a starting rank.
//  - Why the rank registers itself: when hvdrun did it after fork() returned, a SIGKILL of hvdrun
//    between the two left the rank's children with PPID 1 (1-2 of 30-40 restarts on a loaded
//    machine). The rank's copy of the write end is O_CLOEXEC, so the guard cannot see EOF before
//    every starting rank has either registered and exec'd or died: there is no window.
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

  /// The descriptor a child writes its registration to (announce_own_group()); -1 without a
  /// guard. Close-on-exec: it never reaches the program.
  int registration_fd() const { return pipe_.valid() ? pipe_.get() : -1; }
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

/// Called in a child between fork and exec, after it made its own process group: registers
/// that group with the guard through `registration_fd` (Guard::registration_fd(); -1 does
/// nothing). Async-signal-safe: one write(2), no allocation.
void announce_own_group(int registration_fd) noexcept;

}  // namespace hvd::launcher::exec
