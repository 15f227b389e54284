// SPDX-License-Identifier: Apache-2.0
// Preemption and requeue (exec/requeue.h): the rule that decides whether a job is requeued, and
// what the handler does on a notice. The requeue itself (scontrol) runs in the Slurm test
// tests/slurm/t0170-preempt-requeue.sh.
#include "exec/requeue.h"

#include <doctest/doctest.h>
#include <signal.h>
#include <unistd.h>

#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "hvd/str_cat.h"
#include "proc/checkpoint_file.h"

namespace exec = hvd::launcher::exec;
namespace config = hvd::launcher::config;
namespace proc = hvd::launcher::proc;
using exec::RequeueVerdict;

namespace {

// A fresh folder, removed with what it holds.
struct RequeueScratch {
  std::string path = (std::filesystem::temp_directory_path() / "hvd-requeue-test-XXXXXX").string();
  RequeueScratch() { REQUIRE(mkdtemp(path.data()) != nullptr); }
  ~RequeueScratch() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
  std::string file(const std::string& name) const { return path + "/" + name; }
};

}  // namespace

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
  const std::string file = proc::checkpoint_file_path(hvd::str_cat("unit", getpid()));
  proc::remove_checkpoint_file(file);
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
    CHECK(handler.finish(0, true, {{"SLURM_JOB_ID", "42"}}) == 0);       // overran: no scontrol
  }
  SUBCASE("without it: forwarded, the file created, and the run goes on") {
    exec::PreemptionHandler handler(settings, file);
    const exec::NoticeReply reply = handler.on_notice(SIGUSR1);
    CHECK(std::filesystem::exists(file));
    CHECK_FALSE(reply.stop_after.has_value());
    CHECK(handler.finish(0, false, {{"SLURM_JOB_ID", "42"}}) == 0);
  }
  proc::remove_checkpoint_file(file);
}

// The run id is public (every user can list /dev/shm, where it names the run's segments), so a
// name made of it alone let another user plant the notice and stop the job.
TEST_CASE("requeue: checkpoint file names start with the run's and end in 128 random bits") {
  const auto random_part = [](const std::string& path, const std::string& prefix) {
    REQUIRE(path.rfind(prefix, 0) == 0);
    const std::string rest = path.substr(prefix.size());
    CHECK(rest.size() == 32);
    CHECK(rest.find_first_not_of("0123456789abcdef") == std::string::npos);
    return rest;
  };
  const std::string one = proc::checkpoint_file_path("r1");
  const std::string two = proc::checkpoint_file_path("r1");
  CHECK(one != two);
  CHECK(random_part(one, "/dev/shm/hvd-r1-checkpoint-") !=
        random_part(two, "/dev/shm/hvd-r1-checkpoint-"));
  random_part(proc::checkpoint_file_path("r1", 3), "/dev/shm/hvd-r1-checkpoint.3-");
  // hvdrun's /dev/shm cleanup (hvd-<run id>-*) still finds it.
  CHECK(one.rfind("/dev/shm/hvd-r1-", 0) == 0);
}

TEST_CASE("requeue: the checkpoint file is created once, never through a symlink") {
  RequeueScratch dir;
  const std::string file = dir.file("notice");
  CHECK(proc::create_checkpoint_file(file));
  CHECK(proc::create_checkpoint_file(file));  // a second notice finds the first one's file
  const std::string target = dir.file("target");
  std::filesystem::create_symlink(target, dir.file("link"));
  CHECK_FALSE(proc::create_checkpoint_file(dir.file("link")));
  CHECK_FALSE(std::filesystem::exists(target));
}

TEST_CASE("requeue: a checkpoint file another user planted is not adopted" *
          doctest::skip(geteuid() != 0)) {
  RequeueScratch dir;
  const std::string file = dir.file("notice");
  std::ofstream(file).put('\n');
  REQUIRE(chown(file.c_str(), 65534, 65534) == 0);
  CHECK_FALSE(proc::create_checkpoint_file(file));
}
