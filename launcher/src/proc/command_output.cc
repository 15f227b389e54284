// SPDX-License-Identifier: Apache-2.0
#include "proc/command_output.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <thread>

#include "hvd/error.h"
#include "hvd/str_cat.h"
#include "net/socket.h"
#include "proc/c_strings.h"

namespace hvd::launcher::proc {
namespace {

using Clock = std::chrono::steady_clock;

// The tool's ends of its standard streams; -1: /dev/null.
struct ChildFds {
  int in = -1;
  int out = -1;
  int err = -1;
  int cwd = -1;
};

// Between fork and exec: async-signal-safe calls only.
[[noreturn]] void child_main(char* const* argv, char* const* envp, const ChildFds& fds) {
  setpgid(0, 0);  // its own group, so that a kill reaches whatever it started too
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  signal(SIGPIPE, SIG_DFL);  // hvdrun ignores SIGPIPE; exec would keep that
  const int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
  if (null_fd < 0 || (fds.cwd >= 0 && fchdir(fds.cwd) != 0) ||
      dup2(fds.in >= 0 ? fds.in : null_fd, STDIN_FILENO) < 0 || dup2(fds.out, STDOUT_FILENO) < 0 ||
      dup2(fds.err >= 0 ? fds.err : null_fd, STDERR_FILENO) < 0) {
    _exit(127);
  }
  execve(argv[0], argv, envp);
  _exit(127);
}

int exit_code_of(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : -1;
}

using net::Fd;

// A pipe (or, for stdin, a socket pair: send() with MSG_NOSIGNAL needs no SIGPIPE handling in
// a test process or a library caller) whose two ends are closed by their owners.
void make_channel(bool socket, Fd& ours, Fd& theirs, const std::string& tool) {
  int fds[2];
  const int rc =
      socket ? socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) : pipe2(fds, O_CLOEXEC);
  if (rc != 0) {
    throw LaunchError(str_cat("cannot create a pipe for ", tool, ": ", std::strerror(errno)));
  }
  ours.reset(fds[0]);  // a pipe's read end; a socket pair is symmetric
  theirs.reset(fds[1]);
}

// SIGINT, SIGTERM, SIGHUP and SIGQUIT, while hvdrun waits for the tool: those that this thread
// has not blocked already (the supervisor blocks them for its own signalfd) and that are not
// ignored are blocked and read from a signalfd, so that the wait can kill the tool's group
// before the signal takes its course (again()).
class StopSignals {
 public:
  StopSignals() {
    sigset_t blocked;
    sigemptyset(&set_);
    pthread_sigmask(SIG_BLOCK, nullptr, &blocked);
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) {
      struct sigaction action {};
      sigaction(sig, nullptr, &action);
      if (!sigismember(&blocked, sig) && action.sa_handler != SIG_IGN) sigaddset(&set_, sig);
    }
    pthread_sigmask(SIG_BLOCK, &set_, &old_);
    fd_ = Fd(signalfd(-1, &set_, SFD_CLOEXEC | SFD_NONBLOCK));
  }
  ~StopSignals() { pthread_sigmask(SIG_SETMASK, &old_, nullptr); }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;
  int fd() const { return fd_.get(); }
  /// The signal that arrived, 0 if none.
  int take() {
    signalfd_siginfo info{};
    if (fd_.get() >= 0 && read(fd_.get(), &info, sizeof(info)) == sizeof(info)) {
      caught_ = static_cast<int>(info.ssi_signo);
    }
    return caught_;
  }
  /// Unblocks and sends the caught signal to hvdrun again, which ends it unless a handler runs.
  void again() {
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
    if (caught_ != 0) kill(getpid(), caught_);
  }
  int caught() const { return caught_; }

 private:
  sigset_t set_{};
  sigset_t old_{};
  Fd fd_;
  int caught_ = 0;
};

// The wait: feeds stdin, reads stdout and stderr, until both are closed, the deadline passes,
// stdout exceeds its bound or a stop signal arrives.
struct Wait {
  Fd& in;
  Fd& out;
  Fd& err;
  StopSignals& signals;
  const OutputLimits& limits;
  std::string_view to_send;
  CommandOutput& result;

  bool stopped() const { return result.timed_out || result.cut || signals.caught() != 0; }

  void feed() {
    const ssize_t n = send(in.get(), to_send.data(), to_send.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) to_send.remove_prefix(static_cast<size_t>(n));
    if ((n < 0 && errno != EINTR && errno != EAGAIN) || to_send.empty()) in.reset();
  }

  void drain(Fd& fd, std::string& into, size_t bound, bool& over, bool kill_when_over) {
    char buf[4096];
    const ssize_t n = read(fd.get(), buf, sizeof(buf));
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
    if (n <= 0) {
      fd.reset();
      return;
    }
    const size_t room = bound - std::min(bound, into.size());
    into.append(buf, std::min(room, static_cast<size_t>(n)));
    if (static_cast<size_t>(n) > room) over = true;
    if (over && kill_when_over) fd.reset();
  }

  void run(Clock::time_point deadline) {
    while ((out.get() >= 0 || err.get() >= 0) && !stopped()) {
      pollfd pfds[4] = {{out.get(), POLLIN, 0},
                        {err.get(), POLLIN, 0},
                        {in.get(), POLLOUT, 0},
                        {signals.fd(), POLLIN, 0}};
      const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());
      const int ready =
          left.count() <= 0
              ? 0
              : poll(pfds, 4, static_cast<int>(std::min<int64_t>(left.count(), INT_MAX)));
      if (ready < 0 && errno == EINTR) continue;
      if (ready <= 0) {
        result.timed_out = true;
        return;
      }
      if (pfds[3].revents != 0) signals.take();
      if (pfds[2].revents != 0) feed();
      if (pfds[0].revents != 0) drain(out, result.out, limits.max_bytes, result.cut, true);
      if (pfds[1].revents != 0) drain(err, result.err, limits.max_err_bytes, result.err_cut, false);
    }
  }
};

// Reaps the tool; one that was cut off or interrupted, or that outlives the deadline (it may
// close its stdout and go on running), is killed with its group first.
// A tool closes its stdout as it exits, a moment before it can be reaped, so the first look
// usually finds it still running: the pause between looks starts short and doubles, so that
// scontrol, which planning runs on its way to srun, is reaped within about 0.1 ms instead of a
// flat 5 ms later, and a tool that goes on running costs no more than before.
void reap(pid_t pid, Clock::time_point deadline, StopSignals& signals, CommandOutput& result) {
  constexpr std::chrono::microseconds kFirstPause{50};
  constexpr std::chrono::microseconds kLongestPause{5000};
  std::chrono::microseconds pause = kFirstPause;
  int status = 0;
  while (!result.timed_out && !result.cut && signals.take() == 0) {
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
                             const OutputLimits& limits, const CommandInput& input) {
  HVD_CHECK(!argv.empty(), "run_for_output without a program");
  // Everything the child needs is built before fork: hvdrun may run threads by now.
  std::vector<std::string> entries;
  for (const auto& [name, value] : env) entries.push_back(name + "=" + value);
  const std::vector<char*> c_argv = c_strings(argv);
  const std::vector<char*> c_envp = c_strings(entries);
  Fd in, in_child, out, out_child, err, err_child;
  if (!input.stdin_bytes.empty()) make_channel(true, in, in_child, argv[0]);
  make_channel(false, out, out_child, argv[0]);
  if (input.capture_stderr) make_channel(false, err, err_child, argv[0]);
  StopSignals signals;  // before fork: a Ctrl-C from now on is seen by the wait
  const pid_t pid = fork();
  if (pid < 0) throw LaunchError(str_cat("cannot fork for ", argv[0], ": ", std::strerror(errno)));
  if (pid == 0) {
    child_main(c_argv.data(), c_envp.data(),
               {in_child.get(), out_child.get(), err_child.get(), input.cwd_fd});
  }
  setpgid(pid, pid);  // also here, so that a kill right away finds the group
  in_child.reset();
  out_child.reset();
  err_child.reset();
  CommandOutput result;
  const auto deadline = Clock::now() + limits.timeout;
  Wait{in, out, err, signals, limits, input.stdin_bytes, result}.run(deadline);
  reap(pid, deadline, signals, result);
  if (signals.caught() != 0) {
    signals.again();
    throw LaunchError(str_cat(argv[0], " was stopped: hvdrun got signal ", signals.caught()));
  }
  return result;
}

}  // namespace hvd::launcher::proc
