// SPDX-License-Identifier: Apache-2.0
// Supervision that cannot be wedged: nothing of the job survives kill -9 of hvdrun, a stdout
// that does not read cannot keep hvdrun from stopping the ranks, no segment outlives the job,
// and ranks inherit no descriptor of hvdrun's.

#include <fcntl.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <doctest/doctest.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "integration/hvdrun_test_util.h"

using namespace hvd::test;

namespace {

bool file_exists(const std::string& path) { return access(path.c_str(), F_OK) == 0; }

// Polls until `path` is gone; false if `limit` passes first (a bound on a hang, not a timing).
bool wait_until_gone(const std::string& path, std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (file_exists(path)) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

// hvdrun with its stdout on a pipe that nobody reads (`hvdrun ... | sleep N`).
struct StuckStdout {
  pid_t pid = -1;
  int read_end = -1;

  explicit StuckStdout(const std::vector<std::string>& argv) {
    int fds[2];
    REQUIRE(pipe2(fds, O_CLOEXEC) == 0);
    std::vector<char*> cargv;
    for (const std::string& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
    cargv.push_back(nullptr);
    pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      setpgid(0, 0);
      dup2(fds[1], STDOUT_FILENO);
      const int null_fd = open("/dev/null", O_WRONLY);
      dup2(null_fd, STDERR_FILENO);
      execv(cargv[0], cargv.data());
      _exit(127);
    }
    close(fds[1]);
    read_end = fds[0];
  }
  ~StuckStdout() {
    if (pid > 0) {
      kill(-pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
    close(read_end);
  }
  // Bytes waiting in the pipe.
  int queued() const {
    int n = 0;
    ioctl(read_end, FIONREAD, &n);
    return n;
  }
  // Exit code as a shell reports it, or -1 if hvdrun is still running after `limit`.
  int wait(std::chrono::seconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    for (;;) {
      int status = 0;
      if (waitpid(pid, &status, WNOHANG) == pid) {
        pid = -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      }
      if (std::chrono::steady_clock::now() > deadline) return -1;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
};

}  // namespace

TEST_CASE("supervision: after kill -9 of hvdrun no rank and no child of a rank survives") {
  // Before: PDEATHSIG killed the ranks, but what they had started lived on with PPID 1.
  TempDir dir;
  Subprocess p(hvdrun({"-np", "2", "--", RANK_PROBE_EXE, "family", dir.path()}));
  REQUIRE(wait_for_files(dir.path(), "pid", 2));
  REQUIRE(wait_for_files(dir.path(), "child", 2));
  std::vector<pid_t> everyone = read_pids(dir.path(), "pid");
  for (pid_t c : read_pids(dir.path(), "child")) everyone.push_back(c);
  REQUIRE(everyone.size() == 4);
  p.send(SIGKILL);
  CHECK(p.wait().exit_code == 128 + SIGKILL);
  CHECK(wait_until_dead(everyone));
}

TEST_CASE("supervision: after kill -9 of hvdrun no shm segment of the run is left") {
  TempDir dir;
  Subprocess p(hvdrun({"-np", "2", "--", RANK_PROBE_EXE, "shm-leftover", dir.path()}));
  REQUIRE(wait_for_files(dir.path(), "pid", 2));
  const std::string segment = read_text(dir.file("shm.1"));
  REQUIRE(file_exists(segment));
  p.send(SIGKILL);
  p.wait();
  CHECK(wait_until_gone(segment, std::chrono::seconds(30)));
  CHECK(wait_until_gone(read_text(dir.file("shm.0")), std::chrono::seconds(30)));
}

TEST_CASE("supervision: a rank that fails leaves no shm segment of the run behind") {
  // The segment a rank killed during setup leaves (here made by the probe itself) is removed by
  // hvdrun before it exits, whatever ended the job.
  TempDir dir;
  Subprocess p(hvdrun({"-np", "2", "--", RANK_PROBE_EXE, "shm-leftover", dir.path()}));
  REQUIRE(wait_for_files(dir.path(), "pid", 2));
  const std::vector<pid_t> pids = read_pids(dir.path(), "pid");
  kill(pids.at(1), SIGKILL);
  const ProcessResult r = p.wait();
  CHECK(r.exit_code == 128 + SIGKILL);
  CHECK_FALSE(file_exists(read_text(dir.file("shm.0"))));
  CHECK_FALSE(file_exists(read_text(dir.file("shm.1"))));
}

TEST_CASE("supervision: SIGTERM stops the job while hvdrun's stdout does not read") {
  // `hvdrun -np 1 -- yes | sleep 25`: before, hvdrun blocked in write() once the pipe was full
  // and the SIGTERM stayed pending; the rank was never stopped and hvdrun never exited.
  TempDir dir;
  StuckStdout p(hvdrun({"-np", "1", "--", RANK_PROBE_EXE, "yes", dir.path()}));
  REQUIRE(wait_for_files(dir.path(), "pid", 1));
  const pid_t rank = read_pids(dir.path(), "pid").at(0);
  // The pipe is full (64 KiB by default): hvdrun's writes can no longer complete.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (p.queued() < 65536 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  REQUIRE(p.queued() >= 65536);
  kill(p.pid, SIGTERM);
  CHECK(p.wait(std::chrono::seconds(60)) == 128 + SIGTERM);
  CHECK(wait_until_dead({rank}));
}

TEST_CASE("supervision: a rank inherits no descriptor from hvdrun") {
  // Before: the /dev/null hvdrun opened for the rank's stdin (without O_CLOEXEC) stayed open.
  const ProcessResult r = run(hvdrun({"-np", "2", "--", RANK_PROBE_EXE, "fds"}));
  CHECK(r.exit_code == 0);
  CHECK(r.out == "");
}

namespace {

// Starts a process that leads its own group, with pid `wanted` if the kernel lets this test pick
// it (root writing ns_last_pid); returns its pid, or -1.
pid_t start_with_pid(pid_t wanted) {
  for (int attempt = 0; attempt < 50; ++attempt) {
    {
      std::ofstream last("/proc/sys/kernel/ns_last_pid");
      if (!(last << wanted - 1)) return -1;
    }
    const pid_t pid = fork();
    if (pid == 0) {
      setpgid(0, 0);
      for (;;) pause();
    }
    if (pid == wanted) return pid;
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
  }
  return -1;
}

}  // namespace

TEST_CASE("supervision: the group of a rank reaped long ago is not killed when the job ends") {
  // Before: at the end hvdrun SIGKILLed the group of every rank, reaped or not; a new process
  // group that had been given the reaped rank's number was killed with the job.
  TempDir dir;
  const std::string script = "echo $$ > " + dir.file("p.$HOROVOD_RANK") + " && mv " +
                             dir.file("p.$HOROVOD_RANK") + " " + dir.file("pid.$HOROVOD_RANK") +
                             "; [ $HOROVOD_RANK = 0 ] && exit 0; while [ ! -f " + dir.file("go") +
                             " ]; do sleep 0.05; done";
  Subprocess p(hvdrun({"-np", "2", "--", "/bin/sh", "-c", script}));
  REQUIRE(wait_for_files(dir.path(), "pid", 2));
  const pid_t first = static_cast<pid_t>(std::stol(read_text(dir.file("pid.0"))));
  // Rank 0 has exited and hvdrun has reaped it: /proc has no entry, not even a zombie's.
  REQUIRE(wait_until_gone("/proc/" + std::to_string(first), std::chrono::seconds(60)));
  const pid_t impostor = start_with_pid(first);
  if (impostor < 0) {
    MESSAGE("cannot choose a pid here (needs root and ns_last_pid): skipped");
    std::ofstream(dir.file("go")) << "";
    p.wait();
    return;
  }
  std::ofstream(dir.file("go")) << "";
  CHECK(p.wait().exit_code == 0);
  CHECK(process_alive(impostor));
  kill(impostor, SIGKILL);
  waitpid(impostor, nullptr, 0);
}
