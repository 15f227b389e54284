// SPDX-License-Identifier: Apache-2.0
// Preemption and requeue (exec/requeue.h): the rule that decides whether a job is requeued, and
// what the handler does on a notice. The requeue itself (scontrol) runs in the Slurm test
// tests/slurm/t0170-preempt-requeue.sh.
#include "exec/requeue.h"

#include <doctest/doctest.h>
#include <signal.h>
#include <unistd.h>

#include <filesystem>

#include "exec/checkpoint_file.h"
#include "hvd/str_cat.h"

namespace exec = hvd::launcher::exec;
namespace config = hvd::launcher::config;
using exec::RequeueVerdict;

TEST_CASE("requeue: only after a notice, when every rank exited 0 in time, in a Slurm job") {
  const exec::RunEnd clean{true, false, 0};
  CHECK(exec::decide_requeue(true, clean, "42") == RequeueVerdict::kRequeue);
  SUBCASE("a real failure is never requeued, whatever the code") {
    for (int code : {1, 2, 6, 127, 128 + SIGTERM, 128 + SIGKILL, 128 + SIGSEGV}) {
      CAPTURE(code);
      CHECK(exec::decide_requeue(true, {true, false, code}, "42") == RequeueVerdict::kFailed);
      CHECK(exec::decide_requeue(true, {true, true, code}, "42") == RequeueVerdict::kFailed);
    }
  }
  SUBCASE("ranks that needed SIGTERM after the grace: not requeued even if they exited 0") {
    CHECK(exec::decide_requeue(true, {true, true, 0}, "42") == RequeueVerdict::kOverran);
  }
  SUBCASE("no notice: a run that simply ended, or failed, is not requeued") {
    CHECK(exec::decide_requeue(true, {false, false, 0}, "42") == RequeueVerdict::kNoNotice);
    CHECK(exec::decide_requeue(true, {false, false, 3}, "42") == RequeueVerdict::kNoNotice);
  }
  SUBCASE("without --requeue-on-signal nothing is requeued") {
    CHECK(exec::decide_requeue(false, clean, "42") == RequeueVerdict::kOff);
  }
  SUBCASE("outside a Slurm job there is nothing to requeue") {
    CHECK(exec::decide_requeue(true, clean, "") == RequeueVerdict::kNoJob);
  }
}

TEST_CASE("requeue: what is said about a verdict") {
  CHECK(exec::describe_verdict(RequeueVerdict::kFailed, 143) ==
        "not requeueing the job: the run failed after the preemption notice (exit code 143)");
  CHECK(exec::describe_verdict(RequeueVerdict::kOverran, 0).find("end of the checkpoint grace") !=
        std::string::npos);
  CHECK(exec::describe_verdict(RequeueVerdict::kOff, 0).empty());
  CHECK(exec::describe_verdict(RequeueVerdict::kNoNotice, 1).empty());
  CHECK(exec::describe_verdict(RequeueVerdict::kNoJob, 0).find("no SLURM_JOB_ID") !=
        std::string::npos);
}

TEST_CASE("requeue: a notice creates the checkpoint file and sets the grace") {
  const std::string file = exec::checkpoint_file_path(hvd::str_cat("unit", getpid()));
  exec::remove_checkpoint_file(file);
  config::LauncherSettings settings;
  settings.checkpoint_grace_seconds = 7;
  SUBCASE("with --requeue-on-signal: the ranks get the grace, then SIGTERM") {
    settings.requeue_on_signal = true;
    exec::PreemptionHandler handler(settings, file);
    const exec::NoticeReply reply = handler.on_notice(SIGUSR2);
    CHECK(std::filesystem::exists(file));
    REQUIRE(reply.stop_after.has_value());
    CHECK(reply.stop_after->count() == 7);
    CHECK(reply.message.find("SIGUSR2 (preemption notice)") != std::string::npos);
    CHECK(handler.on_notice(SIGUSR2).message.empty());  // the first notice counts
    // All exited 0 but no job: nothing to run, the exit code stays.
    CHECK(handler.finish(0, false, {}) == 0);
    CHECK(handler.finish(143, false, {{"SLURM_JOB_ID", "42"}}) == 143);  // failed: no scontrol
    CHECK(handler.finish(0, true, {{"SLURM_JOB_ID", "42"}}) == 0);  // overran: no scontrol
  }
  SUBCASE("without it: forwarded, the file created, and the run goes on") {
    exec::PreemptionHandler handler(settings, file);
    const exec::NoticeReply reply = handler.on_notice(SIGUSR1);
    CHECK(std::filesystem::exists(file));
    CHECK_FALSE(reply.stop_after.has_value());
    CHECK(handler.finish(0, false, {{"SLURM_JOB_ID", "42"}}) == 0);
  }
  exec::remove_checkpoint_file(file);
}

TEST_CASE("requeue: checkpoint file names") {
  CHECK(exec::checkpoint_file_path("r1") == "/dev/shm/hvd-r1-checkpoint");
  CHECK(exec::checkpoint_file_path("r1", 3) == "/dev/shm/hvd-r1-checkpoint.3");
}
