// SPDX-License-Identifier: Apache-2.0
// `hvdrun exec-rank` as its rank's parent: it ends exactly as the rank ended (exit code, or the
// same signal), it outlives a signal sent to the whole step (process group) without sending
// the rank a second one, and it cleans up after the rank before it ends. Each case runs the
// parent in a forked process, as run_as_parent() never returns.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "exec/rank_parent.h"
#include "exec/shm_cleanup.h"
#include "exec/status_mirror.h"
#include "hvd/error.h"

namespace exec = hvd::launcher::exec;
namespace fs = std::filesystem;

namespace {

// Forks; the child runs fn (which must end the process) in its own process group. Returns the
// child's pid.
pid_t fork_running(const std::function<void()>& fn) {
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    setpgid(0, 0);
    const rlimit no_core{0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    try {
      fn();
    } catch (...) {
    }
    _exit(99);
  }
  setpgid(pid, pid);
  return pid;
}

int wait_status(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

// The wait status of `sh -c script` run directly, and run under a mirroring parent.
std::pair<int, int> direct_and_mirrored(const std::string& script) {
  const pid_t direct = fork_running(
      [&] { execl("/bin/sh", "sh", "-c", script.c_str(), static_cast<char*>(nullptr)); });
  const int direct_status = wait_status(direct);
  const pid_t mirror = fork_running([&] {
    exec::run_as_parent("/bin/sh", {"sh", "-c", script}, {"PATH=/usr/bin:/bin"}, [](pid_t) {});
  });
  return {direct_status, wait_status(mirror)};
}

bool wait_for_file(const std::string& path) {
  for (int i = 0; i < 2000; ++i) {
    if (fs::exists(path)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

class TempFolder {
 public:
  TempFolder() {
    std::string pattern = (fs::temp_directory_path() / "hvd-rankparent-XXXXXX").string();
    REQUIRE(mkdtemp(pattern.data()) != nullptr);
    path_ = pattern;
  }
  ~TempFolder() { fs::remove_all(path_); }
  TempFolder(const TempFolder&) = delete;
  TempFolder& operator=(const TempFolder&) = delete;
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace

TEST_CASE("status mirror: ending_of reads exit codes and signals") {
  const exec::Ending exited = exec::ending_of(3 << 8);
  CHECK(exited.exit_code == 3);
  CHECK(exited.signal == 0);
  const exec::Ending killed = exec::ending_of(SIGTERM);
  CHECK(killed.signal == SIGTERM);
  CHECK(killed.exit_code == 128 + SIGTERM);
}

TEST_CASE("rank parent: ends with the rank's exit code or by the rank's signal") {
  for (const std::string script :
       {"exit 0", "exit 3", "exit 255", "kill -TERM $$", "kill -KILL $$", "kill -SEGV $$",
        "kill -USR1 $$", "kill -INT $$", "kill -ABRT $$"}) {
    CAPTURE(script);
    const auto [direct, mirrored] = direct_and_mirrored(script);
    CHECK(WIFEXITED(mirrored) == WIFEXITED(direct));
    CHECK(WIFSIGNALED(mirrored) == WIFSIGNALED(direct));
    if (WIFEXITED(direct)) CHECK(WEXITSTATUS(mirrored) == WEXITSTATUS(direct));
    if (WIFSIGNALED(direct)) CHECK(WTERMSIG(mirrored) == WTERMSIG(direct));
  }
}

TEST_CASE("rank parent: a signal to the whole step reaches the rank once, and the parent waits") {
  TempFolder dir;
  const std::string ready = dir.file("ready");
  const std::string got = dir.file("got");
  const std::string cleaned = dir.file("cleaned");
  const auto parent_of = [&](const std::string& script) {
    return fork_running([&] {
      exec::run_as_parent("/bin/sh", {"sh", "-c", script}, {"PATH=/usr/bin:/bin"},
                          [&cleaned](pid_t) { std::ofstream(cleaned) << "yes"; });
    });
  };
  SUBCASE("a rank that handles the signal and exits 0: the parent exits 0") {
    const pid_t parent = parent_of("trap 'echo USR1 >> " + got + "; exit 0' USR1; touch " + ready +
                                   "; while :; do sleep 0.05; done");
    REQUIRE(wait_for_file(ready));
    kill(-parent, SIGUSR1);  // as Slurm signals every process of the step
    const int status = wait_status(parent);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
    std::ifstream in(got);
    std::stringstream text;
    text << in.rdbuf();
    CHECK(text.str() == "USR1\n");  // once: the parent forwarded nothing
    CHECK(fs::exists(cleaned));
  }
  SUBCASE("a preemption notice reaches the rank, and the parent's on_notice runs (the file)") {
    const std::string notice = dir.file("notice");
    const pid_t parent = fork_running([&] {
      exec::run_as_parent(
          "/bin/sh",
          {"sh", "-c", "trap 'while [ ! -e " + notice + " ]; do sleep 0.05; done; exit 0' USR2; " +
                           "touch " + ready + "; while :; do sleep 0.05; done"},
          {"PATH=/usr/bin:/bin"}, [](pid_t) {},
          [&notice](int sig) {
            if (sig == SIGUSR2) std::ofstream(notice) << "yes";
          });
    });
    REQUIRE(wait_for_file(ready));
    kill(-parent, SIGUSR2);
    const int status = wait_status(parent);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
  }
  SUBCASE("a rank that dies of SIGTERM: the parent cleans up, then dies of SIGTERM too") {
    const pid_t parent = parent_of("touch " + ready + "; exec sleep 600");
    REQUIRE(wait_for_file(ready));
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // let sh exec sleep
    kill(-parent, SIGTERM);
    const int status = wait_status(parent);
    CHECK(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == SIGTERM);
    CHECK(fs::exists(cleaned));
  }
}

TEST_CASE("rank parent: the rank's own segments are removed when it ends, not another's") {
  TempFolder dir;
  // The rank creates a segment named with its pid, as the shm transport does, and dies.
  const std::string script = "touch " + dir.file("hvd-run7-$$-a1-0-ff") + " " +
                             dir.file("hvd-run7-1-a1-1-ff") + " " + dir.file("hvd-run8-$$-x") +
                             "; kill -KILL $$";
  const std::string where = dir.path();
  const pid_t parent = fork_running([&] {
    exec::run_as_parent(
        "/bin/sh", {"sh", "-c", script}, {"PATH=/usr/bin:/bin"},
        [&where](pid_t rank) { exec::remove_process_segments("run7", rank, where.c_str()); });
  });
  const int status = wait_status(parent);
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGKILL);
  std::vector<std::string> left;
  for (const auto& e : fs::directory_iterator(dir.path())) {
    left.push_back(e.path().filename().string());
  }
  std::sort(left.begin(), left.end());
  REQUIRE(left.size() == 2);
  CHECK(left[0] == "hvd-run7-1-a1-1-ff");     // another process's
  CHECK(left[1].rfind("hvd-run8-", 0) == 0);  // another run's
}

TEST_CASE("rank parent: a program that cannot be executed is a LaunchError naming it") {
  TempFolder dir;
  const std::string missing = dir.file("nope");
  const pid_t parent = fork_running([&] {
    try {
      exec::run_as_parent(missing, {"nope"}, {}, [](pid_t) {});
    } catch (const hvd::LaunchError& e) {
      _exit(std::string(e.what()).find("cannot execute '" + missing + "'") != std::string::npos
                ? 42
                : 43);
    }
  });
  const int status = wait_status(parent);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 42);
}

TEST_CASE("rank parent: a rank that stays stopped is reported after the grace, again while it "
          "stays stopped, and no more once it runs on") {
  TempFolder dir;
  const std::string ready = dir.file("ready");
  const std::string reports = dir.file("reports");
  const std::string started = dir.file("started");
  const std::string go_on = dir.file("go-on");
  // The rank stops itself, and once continued waits for go-on (so that no report can come
  // after the continue), then exits 5.
  const std::string script = "touch " + ready + "; kill -STOP $$; while [ ! -e " + go_on +
                             " ]; do sleep 0.05; done; exit 5";
  const pid_t parent = fork_running([&] {
    exec::RankWatch watch;
    watch.on_started = [&started](pid_t pid) { std::ofstream(started) << pid; };
    watch.while_stopped = [&reports] { std::ofstream(reports, std::ios::app) << "stopped\n"; };
    watch.stop_grace = std::chrono::milliseconds(100);
    watch.stop_repeat = std::chrono::milliseconds(100);
    exec::run_as_parent("/bin/sh", {"sh", "-c", script}, {"PATH=/usr/bin:/bin"}, [](pid_t) {},
                        {}, watch);
  });
  REQUIRE(wait_for_file(ready));
  // Reported at least twice while stopped.
  auto count = [&reports] {
    std::ifstream in(reports);
    return static_cast<int>(std::count(std::istreambuf_iterator<char>(in),
                                       std::istreambuf_iterator<char>(), '\n'));
  };
  for (int i = 0; i < 2000 && count() < 2; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  CHECK(count() >= 2);
  REQUIRE(fs::exists(started));
  pid_t rank = 0;
  std::ifstream(started) >> rank;
  REQUIRE(rank > 0);
  kill(rank, SIGCONT);
  // Once continued: no new report, however long it runs on (the rank waits for go-on).
  // (A second for the parent to see the continue: a bound for a loaded machine, not a timing.)
  std::this_thread::sleep_for(std::chrono::seconds(1));
  const int after_continue = count();
  std::this_thread::sleep_for(std::chrono::seconds(1));
  CHECK(count() == after_continue);
  std::ofstream(go_on) << "go";
  const int status = wait_status(parent);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 5);
}
