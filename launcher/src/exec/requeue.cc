// SPDX-License-Identifier: Apache-2.0
#include "exec/requeue.h"

#include <signal.h>
#include <string.h>

#include <cstdio>
#include <iostream>

#include "hvd/env_keys.h"
#include "hvd/error.h"
#include "proc/checkpoint_file.h"
#include "proc/command_output.h"
#include "proc/signal_name.h"
#include "slurm/slurm_tools.h"

namespace hvd::launcher::exec {
namespace {

using proc::signal_name;

std::string seconds_since(std::chrono::steady_clock::time_point t) {
  const std::chrono::duration<double> d = std::chrono::steady_clock::now() - t;
  char text[32];
  std::snprintf(text, sizeof(text), "%.2f s", d.count());
  return text;
}

// Outside the supervisor (its router has finished), so straight to stderr.
void say(const std::string& message) { std::cerr << "hvdrun: " << message << std::endl; }

}  // namespace

RequeueVerdict decide_requeue(bool enabled, const RunEnd& end, const std::string& job_id) {
  if (!enabled) return RequeueVerdict::kOff;
  if (!end.notice_received) return RequeueVerdict::kNoNotice;
  if (end.exit_code != 0) return RequeueVerdict::kFailed;
  if (end.grace_overrun) return RequeueVerdict::kOverran;
  if (job_id.empty()) return RequeueVerdict::kNoJob;
  return RequeueVerdict::kRequeue;
}

std::string describe_verdict(RequeueVerdict verdict, int exit_code) {
  switch (verdict) {
    case RequeueVerdict::kFailed:
      return str_cat("not requeueing the job: the run failed after the preemption notice (exit ",
                     "code ", exit_code, ")");
    case RequeueVerdict::kOverran:
      return "not requeueing the job: ranks were still running at the end of the checkpoint "
             "grace (--checkpoint-grace-seconds), so their checkpoint may be missing";
    case RequeueVerdict::kNoJob:
      return "all ranks exited 0 after the preemption notice; not in a Slurm job (no "
             "SLURM_JOB_ID), so there is nothing to requeue";
    case RequeueVerdict::kOff:
    case RequeueVerdict::kNoNotice:
    case RequeueVerdict::kRequeue:
      break;
  }
  return "";
}

std::string local_checkpoint_file(const plan::LaunchPlan& plan) {
  if (plan.starter || plan.ranks.empty()) return "";
  return env_string(plan.ranks.front().env, env::kCheckpointFile, "");
}

PreemptionHandler::PreemptionHandler(const config::LauncherSettings& settings,
                                     std::string checkpoint_file)
    : requeue_on_signal_(settings.requeue_on_signal),
      grace_(settings.checkpoint_grace_seconds),
      checkpoint_file_(std::move(checkpoint_file)) {}

PreemptionHandler::~PreemptionHandler() {
  if (notice_at_ && !checkpoint_file_.empty()) proc::remove_checkpoint_file(checkpoint_file_);
}

NoticeReply PreemptionHandler::on_notice(int sig) {
  NoticeReply reply;
  if (notice_at_) return reply;  // a repeated notice changes nothing; the first one counts
  notice_at_ = std::chrono::steady_clock::now();
  notice_signal_ = sig;
  std::string file_note;
  if (!checkpoint_file_.empty() && !proc::create_checkpoint_file(checkpoint_file_)) {
    file_note = str_cat(" (could not create the checkpoint file ", checkpoint_file_, ": ",
                        strerror(errno), ")");
  }
  if (!requeue_on_signal_) {
    reply.message =
        str_cat("received ", signal_name(sig), "; forwarded it to every rank", file_note);
    return reply;
  }
  reply.message = str_cat("received ", signal_name(sig), " (preemption notice); forwarded it to ",
                          "every rank, which have ", grace_.count(),
                          " s to checkpoint and exit 0 before the job is requeued", file_note);
  reply.stop_after = grace_;
  return reply;
}

int PreemptionHandler::finish(int exit_code, bool grace_overrun, const EnvMap& env) {
  const std::string job_id = env_string(env, "SLURM_JOB_ID", env_string(env, "SLURM_JOBID", ""));
  const RequeueVerdict verdict = decide_requeue(
      requeue_on_signal_, RunEnd{notice_at_.has_value(), grace_overrun, exit_code}, job_id);
  if (verdict != RequeueVerdict::kRequeue) {
    if (const std::string line = describe_verdict(verdict, exit_code); !line.empty()) say(line);
    return exit_code;
  }
  const std::string scontrol = slurm::find_slurm_tool("scontrol", env);
  // Said before: Slurm ends this batch step (hvdrun too) as it requeues the job.
  say(str_cat("all ranks exited 0 after ", signal_name(notice_signal_), "; requeueing job ", job_id,
              " (scontrol requeue), ", seconds_since(*notice_at_), " after the notice"));
  const proc::CommandOutput out = proc::run_for_output({scontrol, "requeue", job_id}, env);
  if (out.exit_code != 0) {
    throw SchedulerError(str_cat("all ranks exited 0 after ", signal_name(notice_signal_),
                                 ", but `scontrol requeue ", job_id, "` failed (exit code ",
                                 out.exit_code, "); is JobRequeue allowed for this job?"));
  }
  say(str_cat("requeued job ", job_id, ", ", seconds_since(*notice_at_), " after the notice"));
  return exit_code;
}

}  // namespace hvd::launcher::exec
