// SPDX-License-Identifier: Apache-2.0
// The guard (exec/guard.h) kills a rank's whole process group when hvdrun dies by SIGKILL. The
// rank registers its group itself, between fork and exec, so a kill -9 of hvdrun right after
// fork() returned (before hvdrun could have said anything to the guard) still orphans nothing.
#include <doctest/doctest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "exec/guard.h"
#include "exec/rank_process.h"

namespace exec = hvd::launcher::exec;
namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

// A process that is gone or a zombie (killed, waiting for a reaper that may be slow to come).
bool gone(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return true;
  const size_t paren = line.rfind(')');
  return paren != std::string::npos && paren + 2 < line.size() && line[paren + 2] == 'Z';
}

bool gone_within(pid_t pid, std::chrono::seconds limit) {
  for (const auto end = Clock::now() + limit; Clock::now() < end;) {
    if (gone(pid)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return gone(pid);
}

// Plays hvdrun: starts the guard and one rank whose program leaves a child of its own in its
// group, waits for that child to exist, then dies by SIGKILL without a word to the guard.
[[noreturn]] void fake_hvdrun(const std::string& pid_file) {
  exec::Guard guard = exec::Guard::start();
  exec::SpawnRequest request;
  request.program = "/bin/sh";
  request.argv = {"sh", "-c",
                  "sleep 60 & echo $! > " + pid_file + ".part && mv " + pid_file + ".part " +
                      pid_file + "; wait"};
  request.env = {"PATH=/usr/bin:/bin"};
  request.guard_fd = guard.registration_fd();
  exec::RankProcess rank = exec::spawn_rank(request);
  for (const auto end = Clock::now() + std::chrono::seconds(20); Clock::now() < end;) {
    if (fs::exists(pid_file)) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  raise(SIGKILL);
  _exit(1);
}

}  // namespace

TEST_CASE("guard: kill -9 of hvdrun right after a rank started leaves none of its processes") {
  std::string dir = (fs::temp_directory_path() / "hvd-guard-XXXXXX").string();
  REQUIRE(mkdtemp(dir.data()) != nullptr);
  const std::string pid_file = dir + "/grandchild.pid";
  const pid_t hvdrun = fork();
  REQUIRE(hvdrun >= 0);
  if (hvdrun == 0) fake_hvdrun(pid_file);
  int status = 0;
  REQUIRE(waitpid(hvdrun, &status, 0) == hvdrun);
  CHECK(WIFSIGNALED(status));
  std::ifstream in(pid_file);
  pid_t grandchild = 0;
  in >> grandchild;
  REQUIRE(grandchild > 1);
  const bool killed = gone_within(grandchild, std::chrono::seconds(10));
  if (!killed) kill(grandchild, SIGKILL);  // leave nothing behind either way
  CHECK_MESSAGE(killed, "the rank's child (sleep, pid ", grandchild, ") outlived hvdrun");
  fs::remove_all(dir);
}

TEST_CASE("guard: without a guard a rank announces nothing and starts as before") {
  exec::SpawnRequest request;
  request.program = "/bin/true";
  request.argv = {"true"};
  exec::RankProcess rank = exec::spawn_rank(request);
  CHECK(exec::wait_for_exec(rank) == 0);
  int status = 0;
  REQUIRE(waitpid(rank.pid, &status, 0) == rank.pid);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}
