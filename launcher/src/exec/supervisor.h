// SPDX-License-Identifier: Apache-2.0
#pragma once
// Supervisor: starts the job's processes and stays with them to the end. Locally they are the
// ranks themselves; inside a Slurm allocation it is the one srun whose tasks are the ranks (and
// whose --label'ed output is turned back into per-rank lines).
//
// One thread, one poll() loop over the children's output pipes and a signalfd:
//  - output goes through OutputRouter, whole lines only;
//  - the first child that exits non-zero or dies from a signal is the failure: the others get
//    SIGTERM, then SIGKILL after the grace period, and hvdrun exits with that rank's code
//    (128+signal for a signal); srun reports which task failed itself;
//  - SIGINT, SIGTERM, SIGHUP and SIGQUIT sent to hvdrun are forwarded to every rank, which then
//    get the same grace before SIGKILL (a second SIGINT kills at once); hvdrun exits 128+signal;
//    with an on_quit() hook, SIGQUIT asks for the verdict instead (exec/why_service.h);
//  - other threads post messages and a stop through the inbox (exec/supervisor_inbox.h);
//  - SIGUSR1 and SIGUSR2 are forwarded and the run goes on (preemption notices), unless the
//    notice hook (exec/requeue.h) sets a time after which the ranks still running get SIGTERM;
//  - with watch_idle(), when no rank has written output for the timeout, hvdrun names each
//    rank's last output and stops the job as a failure of its own (exit 8, exec/idle_watch.h);
//  - no rank outlives hvdrun: each rank leads its own process group, which is SIGKILLed once the
//    rank has exited (observed with WNOWAIT, before it is reaped, so the group id cannot have been
//    reused); PR_SET_PDEATHSIG and the guard (guard.h) cover hvdrun itself being killed.

#include <poll.h>

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "exec/guard.h"
#include "exec/idle_watch.h"
#include "exec/output_router.h"
#include "exec/rank_process.h"
#include "exec/run_outcome.h"
#include "exec/supervisor_inbox.h"

namespace hvd::launcher::exec {

/// Blocks the signals hvdrun forwards, so that they queue for the signalfd. Must run before any
/// thread starts (threads inherit the mask) and before the ranks are spawned.
void block_forwarded_signals();

/// One process to start and watch.
struct Child {
  std::string name;      // for messages: "rank 3 (pid 42 on host)" or "srun"
  SpawnRequest request;
  int output_rank = -1;  // >= 0: its output is this rank's; -1: srun --label output
  /// For srun: which rank really failed, since srun's own exit code is the highest of its
  /// tasks'. Returns the failure's exit code and a description, or nothing.
  struct Explained {
    int exit_code;
    std::string who;  // "rank 5"
    std::string how;  // "rank 5 on node2 exited with code 3"
    int rank = -1;    // 5; -1 when srun named several tasks at once
  };
  std::function<std::optional<Explained>()> explain_failure;
};

/// What the supervisor does after forwarding SIGUSR1/SIGUSR2 (a preemption notice).
struct NoticeReply {
  std::string message;                             // said on stderr when not empty
  std::optional<std::chrono::seconds> stop_after;  // then SIGTERM the ranks still running
};

class Supervisor {
 public:
  /// `guard` (not owned, may be null) is told about every process group started and ended.
  Supervisor(std::vector<Child> children, OutputRouter& router, std::chrono::seconds kill_grace,
             Guard* guard = nullptr);
  ~Supervisor();
  Supervisor(const Supervisor&) = delete;
  Supervisor& operator=(const Supervisor&) = delete;

  /// Starts the children and returns how they ended once all are gone; exit_code is hvdrun's.
  /// Throws LaunchError if they cannot be started (after stopping the ones that were). The
  /// router is left to the caller to finish(), so that it can carry on across restarts.
  RunOutcome run();

  /// Called on hvdrun's thread after each SIGUSR1/SIGUSR2 has been forwarded (exec/requeue.h).
  void on_notice(std::function<NoticeReply(int sig)> hook) { notice_hook_ = std::move(hook); }
  /// --idle-timeout: before run(), stop the job once none of its `num_ranks` ranks has written
  /// output for `timeout` (0: never).
  void watch_idle(int num_ranks, std::chrono::seconds timeout) {
    idle_ranks_ = num_ranks;
    idle_timeout_ = timeout;
  }
  /// After run(): whether ranks were still running when a notice's stop_after ran out (they got
  /// SIGTERM then, however they ended).
  bool notice_grace_overrun() const { return notice_grace_overrun_; }
  /// Called on hvdrun's thread for each SIGQUIT, which is then not forwarded (hvdrun why).
  void on_quit(std::function<void()> hook) { quit_hook_ = std::move(hook); }
  /// Called on hvdrun's thread once the children started: (output rank, pid) of each rank
  /// process (none for srun or mpirun, whose ranks are not hvdrun's children).
  void on_spawned(std::function<void(const std::vector<std::pair<int, pid_t>>&)> hook) {
    spawned_hook_ = std::move(hook);
  }
  /// For other threads: messages, and a stop of the job as a failure.
  SupervisorInbox& inbox() { return inbox_; }

 private:
  struct Rank {
    Child child;
    RankProcess process;
    bool alive = false;
  };
  struct Failure {
    int rank;
    int exit_code;
    std::string who;
    int failed_rank = -1;  // the job's rank number, when known
    std::string how;       // "rank 1 on host exited with code 3"
  };
  struct PipeOwner {
    int rank;
    Stream stream;
  };
  using Clock = std::chrono::steady_clock;

  void spawn_all();
  void event_loop();
  void handle_signals();
  void reap();
  void on_exit(int rank, int status);
  void forward(int sig);
  void stop_all(int sig, const std::string& why);
  void drain_output(Clock::duration limit);
  void collect_pipes(std::vector<pollfd>& fds, std::vector<PipeOwner>& owners);
  bool read_pipe(int rank, Stream stream);
  void end_of_stream(int child, Stream stream);
  int live_ranks() const;
  void notice(int sig);
  int poll_timeout_ms(bool backlogged) const;
  void start_idle_watch();
  void stop_idle_job();
  void read_inbox();
  void report_spawned();

  OutputRouter& router_;
  std::chrono::seconds kill_grace_;
  Guard* guard_;
  std::vector<Rank> ranks_;
  net::Fd signal_fd_;
  std::optional<Failure> failure_;
  int interrupted_by_ = 0;            // the first terminating signal hvdrun received
  std::optional<Clock::time_point> kill_deadline_;
  bool killed_ = false;
  std::function<NoticeReply(int)> notice_hook_;
  std::optional<Clock::time_point> notice_stop_at_;  // after a notice: SIGTERM the rest then
  bool notice_grace_overrun_ = false;
  int idle_ranks_ = 0;
  std::chrono::seconds idle_timeout_{0};
  std::optional<IdleWatch> idle_;  // with watch_idle() only
  std::function<void()> quit_hook_;
  std::function<void(const std::vector<std::pair<int, pid_t>>&)> spawned_hook_;
  SupervisorInbox inbox_;
};

}  // namespace hvd::launcher::exec
