// SPDX-License-Identifier: Apache-2.0
#include "exec/rank_parent.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <optional>

#include "exec/fd_limit.h"
#include "exec/status_mirror.h"
#include "hvd/error.h"
#include "hvd/str_cat.h"
#include "proc/c_strings.h"

namespace hvd::launcher::exec {
namespace {

// Between fork and exec: async-signal-safe calls only. An exec failure goes to the parent as
// errno through `error_fd` (closed by a successful exec).
[[noreturn]] void child_main(const char* program, char* const* argv, char* const* envp,
                             const sigset_t& mask, int error_fd) {
  sigprocmask(SIG_SETMASK, &mask, nullptr);
  restore_fd_limit_in_child();  // hvdrun raised its own (exec/fd_limit.h)
  execve(program, argv, envp);
  const int err = errno;
  while (write(error_fd, &err, sizeof(err)) < 0 && errno == EINTR) {
  }
  _exit(127);
}

// errno from the child's failed exec, or 0 once the exec succeeded.
int exec_error(int fd) {
  int err = 0;
  ssize_t n;
  do {
    n = read(fd, &err, sizeof(err));
  } while (n < 0 && errno == EINTR);
  return n == static_cast<ssize_t>(sizeof(err)) ? err : 0;
}

timespec timespec_of(std::chrono::steady_clock::duration d) {
  const int64_t ns =
      std::max<int64_t>(0, std::chrono::duration_cast<std::chrono::nanoseconds>(d).count());
  return timespec{static_cast<time_t>(ns / 1000000000), static_cast<long>(ns % 1000000000)};
}

// Waits for `pid` to end, handing each SIGUSR1/SIGUSR2 to `on_notice` meanwhile and, while it
// is stopped, calling watch.while_stopped (see the header). SIGCHLD is blocked (since before the
// fork), so an exit, stop or continue between waitpid and the signal wait stays pending and
// ends the wait at once.
int wait_for(pid_t pid, const std::function<void(int)>& on_notice, const RankWatch& watch) {
  using Clock = std::chrono::steady_clock;
  sigset_t wake;
  sigemptyset(&wake);
  for (int sig : {SIGCHLD, SIGUSR1, SIGUSR2}) sigaddset(&wake, sig);
  const int options = watch.while_stopped ? WNOHANG | WUNTRACED | WCONTINUED : WNOHANG;
  std::optional<Clock::time_point> next_report;  // set while the child is stopped
  for (;;) {
    int status = 0;
    const pid_t done = waitpid(pid, &status, options);
    if (done == pid && WIFSTOPPED(status)) {
      if (!next_report) next_report = Clock::now() + watch.stop_grace;
      continue;
    }
    if (done == pid && WIFCONTINUED(status)) {
      next_report.reset();
      continue;
    }
    if (done == pid) return status;
    if (done < 0 && errno != EINTR) throw LaunchError(str_cat("waitpid: ", std::strerror(errno)));
    int sig = 0;
    if (next_report) {
      if (Clock::now() >= *next_report) {
        watch.while_stopped();
        next_report = Clock::now() + watch.stop_repeat;
      }
      const timespec left = timespec_of(*next_report - Clock::now());
      sig = sigtimedwait(&wake, nullptr, &left);  // -1 (EAGAIN) when the time has come
    } else {
      sig = sigwaitinfo(&wake, nullptr);
    }
    if ((sig == SIGUSR1 || sig == SIGUSR2) && on_notice) on_notice(sig);
  }
}

}  // namespace

sigset_t signals_held_while_waiting() {
  sigset_t set;
  sigemptyset(&set);
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2}) sigaddset(&set, sig);
  return set;
}

void run_as_parent(const std::string& program, std::vector<std::string> argv,
                   std::vector<std::string> envp, const std::function<void(pid_t)>& after_exit,
                   const std::function<void(int)>& on_notice, const RankWatch& watch) {
  const std::vector<char*> c_argv = proc::c_strings(argv);
  const std::vector<char*> c_envp = proc::c_strings(envp);
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    throw LaunchError(str_cat("cannot create a pipe: ", std::strerror(errno)));
  }
  // Blocked before fork, so that a signal for the whole step cannot end exec-rank between fork
  // and the wait; the child puts back the mask exec-rank started with.
  sigset_t held = signals_held_while_waiting();
  sigaddset(&held, SIGCHLD);  // for wait_for()'s sigwaitinfo
  signal(SIGCHLD, SIG_DFL);   // an inherited SIG_IGN would reap the child behind our back
  sigset_t started_with;
  sigprocmask(SIG_BLOCK, &held, &started_with);
  const pid_t pid = fork();
  if (pid < 0) {
    throw LaunchError(str_cat("cannot fork for '", program, "': ", std::strerror(errno)));
  }
  if (pid == 0) child_main(program.c_str(), c_argv.data(), c_envp.data(), started_with, fds[1]);
  close(fds[1]);
  const int err = exec_error(fds[0]);
  close(fds[0]);
  if (err == 0 && watch.on_started) watch.on_started(pid);
  const int status = wait_for(pid, on_notice, watch);
  if (err != 0) {
    throw LaunchError(str_cat("cannot execute '", program, "': ", std::strerror(err)));
  }
  after_exit(pid);
  end_as(ending_of(status));
}

}  // namespace hvd::launcher::exec
