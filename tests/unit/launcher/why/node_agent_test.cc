// SPDX-License-Identifier: Apache-2.0
// The Slurm side of hvdrun why on one node: exec-rank's rank folders (why/rank_dir.h) and the
// agent that signals the ranks found there or answers for them (why/node_agent.h), against a
// real store, with real child processes as ranks.
#include "why/node_agent.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include <doctest/doctest.h>

#include "auth/run_secret.h"
#include "hvd/env_keys.h"
#include "store/kv_client.h"
#include "store/kv_server.h"
#include "why/collector.h"
#include "why/job_dir.h"
#include "why/rank_dir.h"

namespace why = hvd::launcher::why;

namespace {

// XDG_RUNTIME_DIR set to a fresh private folder for the test, so that jobs_folder() is ours.
class PrivateRuntimeDir {
 public:
  PrivateRuntimeDir() {
    char pattern[] = "/tmp/hvd-node-agent-XXXXXX";
    REQUIRE(mkdtemp(pattern) != nullptr);
    path_ = pattern;
    const char* old = getenv("XDG_RUNTIME_DIR");
    had_ = old != nullptr;
    if (had_) old_ = old;
    setenv("XDG_RUNTIME_DIR", path_.c_str(), 1);
  }
  ~PrivateRuntimeDir() {
    if (had_) {
      setenv("XDG_RUNTIME_DIR", old_.c_str(), 1);
    } else {
      unsetenv("XDG_RUNTIME_DIR");
    }
    std::filesystem::remove_all(path_);
  }

 private:
  std::string path_;
  std::string old_;
  bool had_ = false;
};

// A rank stand-in: /bin/sh that writes "dumped" to py.RANK in `folder` on SIGURG, as
// faulthandler does for a Python rank without libhvd. The child only calls execl: the store's
// server thread may hold the allocator's lock at fork, and a child that allocated then would
// wait for it for ever (it did, under ASan, about one run in two).
pid_t start_shell_rank(const std::string& folder, int rank) {
  const std::string script = "trap 'printf dumped > \"" + folder + "/py." + std::to_string(rank) +
                             "\"' URG; while :; do sleep 0.05; done";
  const pid_t pid = fork();
  if (pid == 0) {
    execl("/bin/sh", "sh", "-c", script.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  REQUIRE(pid > 0);
  return pid;
}

void end_rank(pid_t pid) {
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
}

// Ends a stand-in rank however the test case ends: a child left behind would hold ctest's
// output pipe open, and ctest would wait for it until its timeout.
class RankStandIn {
 public:
  RankStandIn(const std::string& folder, int rank) : pid_(start_shell_rank(folder, rank)) {}
  ~RankStandIn() { end_rank(pid_); }
  RankStandIn(const RankStandIn&) = delete;
  RankStandIn& operator=(const RankStandIn&) = delete;
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_;
};

// Waits until /proc shows the child running its script (so that its trap is set).
void settle() { std::this_thread::sleep_for(std::chrono::milliseconds(300)); }

}  // namespace

TEST_CASE("rank folders: a run's ranks on this node are found, not other runs' or nodes'") {
  PrivateRuntimeDir runtime;
  why::RankDir mine = why::RankDir::create("run-a", 1, "node1");
  why::RankDir other_node = why::RankDir::create("run-a", 2, "node2");
  why::RankDir other_run = why::RankDir::create("run-b", 0, "node1");
  why::RankDir unrecorded = why::RankDir::create("run-a", 3, "node1");
  mine.record(getpid());
  other_node.record(getpid());
  other_run.record(getpid());
  std::vector<why::LocalRank> found = why::local_ranks("run-a", "node1");
  REQUIRE(found.size() == 1);
  CHECK(found[0].rank == 1);
  CHECK(found[0].pid == getpid());
  CHECK(found[0].folder == mine.path());

  // A rank that ended (its pid no longer names the process that started) is not found.
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) _exit(0);
  why::RankDir ended = why::RankDir::create("run-a", 4, "node1");
  ended.record(child);
  waitpid(child, nullptr, 0);
  CHECK(why::local_ranks("run-a", "node1").size() == 1);
  // ... and its folder, which its exec-rank (killed) did not remove, is gone.
  CHECK_FALSE(std::filesystem::exists(ended.path()));

  const std::string path = mine.path();
  mine.remove();
  CHECK_FALSE(std::filesystem::exists(path));
  CHECK(why::local_ranks("run-a", "node1").empty());
  mine.remove();  // idempotent
}

TEST_CASE("job folders: the folder of a job whose hvdrun was killed is removed, a live one "
          "stays") {
  PrivateRuntimeDir runtime;
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) _exit(0);
  const std::string start = why::process_start_ticks(child);
  waitpid(child, nullptr, 0);
  const std::string dead = why::jobs_folder() + "/job-dead";
  REQUIRE(mkdir(dead.c_str(), 0700) == 0);
  std::ofstream(dead + "/job.json") << nlohmann::json{
      {"pid", child}, {"start", start}, {"command", "python3 train.py"}};
  why::JobDir live = why::JobDir::create({"python3", "live.py"});
  const std::vector<why::RunningJob> jobs = why::running_jobs();
  REQUIRE(jobs.size() == 1);
  CHECK(jobs[0].pid == getpid());
  CHECK(jobs[0].command == "python3 live.py");
  CHECK_FALSE(std::filesystem::exists(dead));
  CHECK(std::filesystem::exists(live.path()));
}

TEST_CASE("node agent: a stopped rank is answered for, a running one gets the why signal and "
          "its dumped stack is sent") {
  PrivateRuntimeDir runtime;
  const hvd::auth::RunSecret secret = hvd::auth::RunSecret::generate();
  hvd::store::KvServer server("127.0.0.1", 0, secret);
  why::RankDir stopped_dir = why::RankDir::create("run-x", 0, "node1");
  why::RankDir running_dir = why::RankDir::create("run-x", 1, "node1");
  const RankStandIn stopped_rank(stopped_dir.path(), 0);
  const RankStandIn running_rank(running_dir.path(), 1);
  const pid_t stopped = stopped_rank.pid();
  const pid_t running = running_rank.pid();
  settle();
  kill(stopped, SIGSTOP);
  stopped_dir.record(stopped);
  running_dir.record(running);
  // Wait until the kernel shows it stopped.
  for (int i = 0; i < 100 && why::process_condition(stopped) != why::RankCondition::kStopped; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }

  why::NodeAgentInput input;
  input.run_id = "run-x";
  input.node = "node1";
  input.env = {{hvd::env::kStoreAddr, "127.0.0.1"},
               {hvd::env::kStorePort, std::to_string(server.port())},
               {hvd::env::kRunSecret, secret.hex()}};
  input.dump_wait = std::chrono::milliseconds(5000);
  CHECK(why::answer_for_node(input) == 2);

  hvd::store::KvClient client("127.0.0.1", server.port(), secret, std::chrono::seconds(5));
  const auto a0 = nlohmann::json::parse(client.get("why/rank/0", std::chrono::seconds(5)));
  CHECK(a0["condition"] == "stopped");
  CHECK(a0["pid"] == stopped);
  CHECK(a0["host"] == "node1");
  const auto a1 = nlohmann::json::parse(client.get("why/rank/1", std::chrono::seconds(5)));
  CHECK(a1["python_stack"] == "dumped");
  CHECK_FALSE(a1.contains("condition"));
}

TEST_CASE("node agent: no rank of the run on this node is no work, and needs no store") {
  PrivateRuntimeDir runtime;
  why::NodeAgentInput input;
  input.run_id = "run-none";
  input.node = "node1";
  CHECK(why::answer_for_node(input) == 0);
}

TEST_CASE("process condition: a rank its own eu-stack traces is answering, one a debugger "
          "holds is stopped") {
  // A debugger: this test process seizes its child and stops it.
  const pid_t held = fork();
  REQUIRE(held >= 0);
  if (held == 0) {
    for (;;) pause();
  }
  if (ptrace(PTRACE_SEIZE, held, nullptr, nullptr) != 0) {
    MESSAGE("ptrace is not allowed here; skipped");
    end_rank(held);
    return;
  }
  ptrace(PTRACE_INTERRUPT, held, nullptr, nullptr);
  int status = 0;
  waitpid(held, &status, __WALL);
  CHECK(why::process_condition(held) == why::RankCondition::kStopped);
  ptrace(PTRACE_DETACH, held, nullptr, nullptr);
  end_rank(held);

  // eu-stack: the rank's own child seizes it (the rank allowed it, as libhvd does).
  int ready[2];
  REQUIRE(pipe(ready) == 0);
  const pid_t rank = fork();
  REQUIRE(rank >= 0);
  if (rank == 0) {
    setpgid(0, 0);  // with its reader: one group, killed together below
    prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY);
    const pid_t reader = fork();
    if (reader == 0) {
      const pid_t parent = getppid();
      char ok = 0;
      if (ptrace(PTRACE_SEIZE, parent, nullptr, nullptr) == 0 &&
          ptrace(PTRACE_INTERRUPT, parent, nullptr, nullptr) == 0) {
        int st = 0;
        waitpid(parent, &st, __WALL);
        ok = 1;
      }
      if (write(ready[1], &ok, 1) != 1) _exit(1);
      for (;;) pause();
    }
    for (;;) pause();
  }
  setpgid(rank, rank);
  close(ready[1]);
  char ok = 0;
  REQUIRE(read(ready[0], &ok, 1) == 1);
  close(ready[0]);
  if (ok == 1) {
    CHECK(why::process_condition(rank) == why::RankCondition::kSilent);
  } else {
    MESSAGE("the rank's child could not trace it here; skipped");
  }
  kill(-rank, SIGKILL);  // the rank and its reader
  waitpid(rank, nullptr, 0);
}
