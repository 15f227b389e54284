// SPDX-License-Identifier: Apache-2.0
#pragma once
// Preemption notices, and requeueing after one (hvdrun --requeue-on-signal, which
// `hvdrun sbatch --requeue-on-signal` puts in the script; submitit's answer to preemption).
//
// Slurm sends hvdrun, which the batch script exec's, SIGUSR2 some seconds before it preempts
// the job or its time runs out (#SBATCH --signal=B:USR2@LEAD). The supervisor forwards the
// signal to every rank (locally to each rank, in a job to srun, which passes it to its tasks),
// then asks PreemptionHandler what to do:
//  - the local ranks' checkpoint-notice file is created (proc/checkpoint_file.h; exec-rank does
//    it for the ranks of a Slurm step);
//  - with --requeue-on-signal, the ranks get --checkpoint-grace-seconds to write a checkpoint
//    and exit; ranks still running then get SIGTERM, and SIGKILL after --kill-grace-seconds, as
//    after a failure;
//  - once every rank is gone, the job is requeued (`scontrol requeue $SLURM_JOB_ID`, no shell)
//    only if they all exited 0 after the notice. A rank that failed or overran its grace, or a
//    run that got no notice, is never requeued: a job that crashes would otherwise be started
//    again and again, each time waiting in the queue and burning its allocation.
// Without --requeue-on-signal a notice is forwarded (and the file created) and the run goes on.

#include <chrono>
#include <optional>
#include <string>

#include "config/env_map.h"
#include "config/tunables.h"
#include "exec/supervisor.h"
#include "plan/launch_plan.h"

namespace hvd::launcher::exec {

enum class RequeueVerdict {
  kOff,       // --requeue-on-signal not given
  kNoNotice,  // the run ended without a SIGUSR1/SIGUSR2
  kFailed,    // a notice came, but a rank failed: exit code != 0
  kOverran,   // a notice came, but ranks were still running at the end of the grace
  kNoJob,     // all exited 0 after the notice, but hvdrun is not in a Slurm job
  kRequeue,   // all exited 0 after the notice, in a Slurm job
};

/// How a run ended, as far as requeueing goes.
struct RunEnd {
  bool notice_received = false;  // a SIGUSR1/SIGUSR2 came
  bool grace_overrun = false;    // ranks still ran when the checkpoint grace ended (SIGTERM)
  int exit_code = 0;             // hvdrun's: 0 when every rank exited 0
};

/// The rule above, as a pure function. `job_id` is SLURM_JOB_ID (empty outside a job). A run
/// that overran its grace is not requeued even when its ranks exited 0 on the SIGTERM: a
/// program that never checkpoints would otherwise be requeued forever, from the start each time.
RequeueVerdict decide_requeue(bool enabled, const RunEnd& end, const std::string& job_id);

/// One line for stderr about a verdict other than kRequeue (empty for kOff and kNoNotice,
/// where nothing unusual happened).
std::string describe_verdict(RequeueVerdict verdict, int exit_code);

/// The HVD_CHECKPOINT_FILE of the plan's local ranks; empty when hvdrun starts srun or mpirun,
/// whose ranks are not its children.
std::string local_checkpoint_file(const plan::LaunchPlan& plan);

class PreemptionHandler {
 public:
  /// `checkpoint_file`: the local ranks' HVD_CHECKPOINT_FILE, or empty when hvdrun has no
  /// local ranks (a Slurm step, mpirun).
  PreemptionHandler(const config::LauncherSettings& settings, std::string checkpoint_file);
  /// Removes the checkpoint file if on_notice() made it: a notice is for one attempt's ranks.
  ~PreemptionHandler();
  PreemptionHandler(const PreemptionHandler&) = delete;
  PreemptionHandler& operator=(const PreemptionHandler&) = delete;

  /// The supervisor's notice hook (on_notice()), called on hvdrun's thread after `sig` has been
  /// forwarded: remembers the first notice, creates the checkpoint file, and says how long the
  /// ranks may still run.
  NoticeReply on_notice(int sig);

  /// After the run: requeues the job when decide_requeue() says so, says on stderr what it did,
  /// and returns hvdrun's exit code (`exit_code`). `grace_overrun`: the supervisor's
  /// notice_grace_overrun(). Throws SchedulerError when scontrol is missing or fails.
  int finish(int exit_code, bool grace_overrun, const EnvMap& env);

  /// Whether a notice came.
  bool notice_received() const { return notice_signal_ != 0; }

 private:
  bool requeue_on_signal_;
  std::chrono::seconds grace_;
  std::string checkpoint_file_;
  int notice_signal_ = 0;
  std::optional<std::chrono::steady_clock::time_point> notice_at_;
};

}  // namespace hvd::launcher::exec
