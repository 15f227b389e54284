// SPDX-License-Identifier: Apache-2.0
#include "exec/rank_process.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>

#include "exec/fd_limit.h"
#include "exec/guard.h"
#include "hvd/error.h"
#include "proc/c_strings.h"

namespace hvd::launcher::exec {
namespace {

struct Pipe {
  net::Fd read;
  net::Fd write;
};

Pipe make_pipe() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    throw LaunchError(str_cat("cannot create a pipe: ", std::strerror(errno)));
  }
  return {net::Fd(fds[0]), net::Fd(fds[1])};
}

// Reports errno to the parent through the exec-error pipe and ends the child.
[[noreturn]] void child_fail(int error_fd, int err) {
  while (::write(error_fd, &err, sizeof(err)) < 0 && errno == EINTR) {
  }
  _exit(127);
}

// Runs in the child between fork and exec: only async-signal-safe calls.
[[noreturn]] void child_main(const char* program, char* const* argv, char* const* envp,
                             const cpu_set_t* cpus, pid_t parent, int out_fd, int err_fd,
                             int error_fd, int guard_fd) {
  auto fail = [error_fd](int err) { child_fail(error_fd, err); };
  setpgid(0, 0);
  announce_own_group(guard_fd);  // from here on a kill -9 of hvdrun cannot orphan the group
  // Dies with hvdrun even if hvdrun is SIGKILLed; checks for the race where hvdrun died before
  // the flag was set.
  if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) fail(ESRCH);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  signal(SIGPIPE, SIG_DFL);  // hvdrun ignores SIGPIPE; exec keeps an ignored disposition
  // O_CLOEXEC: dup2 gives stdin a descriptor without the flag; the original must not leak into
  // the program as a stray fd.
  const int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (null_fd < 0 || dup2(null_fd, STDIN_FILENO) < 0) fail(errno);
  if (dup2(out_fd, STDOUT_FILENO) < 0 || dup2(err_fd, STDERR_FILENO) < 0) fail(errno);
  if (cpus != nullptr && sched_setaffinity(0, sizeof(cpu_set_t), cpus) != 0) fail(errno);
  restore_fd_limit_in_child();  // hvdrun raised its own for the store (exec/fd_limit.h)
  execve(program, argv, envp);
  child_fail(error_fd, errno);
}

}  // namespace

RankProcess spawn_rank(const SpawnRequest& request) {
  Pipe out = make_pipe();
  Pipe err = make_pipe();
  Pipe exec_error = make_pipe();
  // Everything the child needs is prepared before fork: allocating after fork in a
  // multi-threaded process (the store runs a thread) can deadlock.
  std::vector<char*> argv = proc::c_strings(request.argv);
  std::vector<char*> envp = proc::c_strings(request.env);
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  for (int cpu : request.cpus) {
    if (cpu >= 0 && cpu < CPU_SETSIZE) CPU_SET(cpu, &cpus);
  }
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) throw LaunchError(str_cat("fork failed: ", std::strerror(errno)));
  if (pid == 0) {
    child_main(request.program.c_str(), argv.data(), envp.data(),
               request.cpus.empty() ? nullptr : &cpus, parent, out.write.get(), err.write.get(),
               exec_error.write.get(), request.guard_fd);
  }
  // Also from the parent, so that signals sent to the group right away cannot miss it.
  setpgid(pid, pid);
  RankProcess p;
  p.pid = pid;
  p.out = std::move(out.read);
  p.err = std::move(err.read);
  p.exec_error = std::move(exec_error.read);
  return p;
}

int wait_for_exec(RankProcess& process) {
  int err = 0;
  ssize_t n;
  do {
    n = ::read(process.exec_error.get(), &err, sizeof(err));
  } while (n < 0 && errno == EINTR);
  process.exec_error.reset();
  return n == static_cast<ssize_t>(sizeof(err)) ? err : 0;
}

}  // namespace hvd::launcher::exec
