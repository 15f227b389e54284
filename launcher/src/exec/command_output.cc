// SPDX-License-Identifier: Apache-2.0
#include "exec/command_output.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <thread>

#include "exec/c_strings.h"
#include "hvd/error.h"
#include "hvd/str_cat.h"

namespace hvd::launcher::exec {
namespace {

using Clock = std::chrono::steady_clock;

// Between fork and exec: async-signal-safe calls only.
[[noreturn]] void child_main(char* const* argv, char* const* envp, int out_fd) {
  setpgid(0, 0);  // its own group, so that a kill reaches whatever it started too
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  signal(SIGPIPE, SIG_DFL);  // hvdrun ignores SIGPIPE; exec would keep that
  const int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
  if (null_fd < 0 || dup2(null_fd, STDIN_FILENO) < 0 || dup2(out_fd, STDOUT_FILENO) < 0 ||
      dup2(null_fd, STDERR_FILENO) < 0) {
    _exit(127);
  }
  execve(argv[0], argv, envp);
  _exit(127);
}

int exit_code_of(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : -1;
}

// Reads the helper's stdout until it closes it, the deadline passes or max_bytes is exceeded.
void collect(int fd, Clock::time_point deadline, size_t max_bytes, CommandOutput& result) {
  for (char buf[4096];;) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());
    pollfd pfd{fd, POLLIN, 0};
    const int ready =
        left.count() <= 0
            ? 0
            : poll(&pfd, 1, static_cast<int>(std::min<int64_t>(left.count(), INT_MAX)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) {
      result.timed_out = true;
      return;
    }
    const ssize_t n = read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    const size_t room = max_bytes - result.out.size();
    result.out.append(buf, std::min(room, static_cast<size_t>(n)));
    if (static_cast<size_t>(n) > room) {
      result.cut = true;
      return;
    }
  }
}

// Reaps the helper; one that was cut off, or that outlives the deadline (it may close its
// stdout and go on running), is killed with its group first.
// A helper closes its stdout as it exits, a moment before it can be reaped, so the first look
// usually finds it still running: the pause between looks starts short and doubles, so that
// scontrol, which planning runs on its way to srun, is reaped within about 0.1 ms instead of a
// flat 5 ms later, and a helper that goes on running costs no more than before.
void reap(pid_t pid, Clock::time_point deadline, CommandOutput& result) {
  constexpr std::chrono::microseconds kFirstPause{50};
  constexpr std::chrono::microseconds kLongestPause{5000};
  std::chrono::microseconds pause = kFirstPause;
  int status = 0;
  while (!result.timed_out && !result.cut) {
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid || (done < 0 && errno != EINTR)) {
      result.exit_code = exit_code_of(status);
      return;
    }
    if (Clock::now() >= deadline) result.timed_out = true;
    if (!result.timed_out) {
      std::this_thread::sleep_for(pause);
      pause = std::min(pause * 2, kLongestPause);
    }
  }
  kill(-pid, SIGKILL);
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.exit_code = exit_code_of(status);
}

}  // namespace

CommandOutput run_for_output(const std::vector<std::string>& argv, const EnvMap& env,
                             const OutputLimits& limits) {
  HVD_CHECK(!argv.empty(), "run_for_output without a program");
  // Everything the child needs is built before fork: hvdrun may run threads by now.
  std::vector<std::string> args = argv;
  std::vector<std::string> entries;
  for (const auto& [name, value] : env) entries.push_back(name + "=" + value);
  const std::vector<char*> c_argv = c_strings(args);
  const std::vector<char*> c_envp = c_strings(entries);
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    throw LaunchError(str_cat("cannot create a pipe for ", argv[0], ": ", std::strerror(errno)));
  }
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    throw LaunchError(str_cat("cannot fork for ", argv[0], ": ", std::strerror(errno)));
  }
  if (pid == 0) child_main(c_argv.data(), c_envp.data(), fds[1]);
  setpgid(pid, pid);  // also here, so that a kill right away finds the group
  close(fds[1]);
  CommandOutput result;
  const auto deadline = Clock::now() + limits.timeout;
  collect(fds[0], deadline, limits.max_bytes, result);
  close(fds[0]);
  reap(pid, deadline, result);
  return result;
}

}  // namespace hvd::launcher::exec
