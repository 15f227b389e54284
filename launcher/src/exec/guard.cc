// SPDX-License-Identifier: Apache-2.0
#include "exec/guard.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "exec/shm_cleanup.h"
#include "hvd/error.h"

namespace hvd::launcher::exec {
namespace {

// Groups the guard can hold at once: far more ranks than one host runs. A group beyond it is
// not watched (PDEATHSIG still covers the rank itself).
constexpr int kMaxGroups = 1 << 15;
constexpr int kControlFd = 3;

// The guard's state: static, so that the child needs no allocation.
pid_t g_groups[kMaxGroups];
int g_num_groups = 0;
char g_run_id[72];

void add_group(pid_t pgid) {
  if (g_num_groups < kMaxGroups) g_groups[g_num_groups++] = pgid;
}

void remove_group(pid_t pgid) {
  for (int i = 0; i < g_num_groups; ++i) {
    if (g_groups[i] == pgid) {
      g_groups[i] = g_groups[--g_num_groups];
      return;
    }
  }
}

pid_t parse_pid(const char* text, size_t len) {
  pid_t value = 0;
  if (len == 0 || len > 9) return 0;
  for (size_t i = 0; i < len; ++i) {
    if (text[i] < '0' || text[i] > '9') return 0;
    value = value * 10 + (text[i] - '0');
  }
  return value;
}

void apply(const char* line, size_t len) {
  if (len == 0) return;
  const pid_t pgid = parse_pid(line + 1, len - 1);
  if (line[0] == '+' && pgid > 1) add_group(pgid);
  if (line[0] == '-' && pgid > 1) remove_group(pgid);
  if (line[0] == 's' && len - 1 < sizeof(g_run_id)) {
    std::memcpy(g_run_id, line + 1, len - 1);
    g_run_id[len - 1] = '\0';
  }
}

// Detaches from everything hvdrun holds: its session, terminal, descriptors and signal mask.
void detach(int control) {
  setsid();
  if (control != kControlFd) {
    dup2(control, kControlFd);
  }
  const int null_fd = ::open("/dev/null", O_RDWR);
  if (null_fd >= 0) {
    dup2(null_fd, STDIN_FILENO);
    dup2(null_fd, STDOUT_FILENO);
    dup2(null_fd, STDERR_FILENO);
  }
  close_range(kControlFd + 1, ~0U, 0);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
}

[[noreturn]] void guard_main(int control) {
  detach(control);
  char line[128];
  size_t len = 0;
  bool overlong = false;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(kControlFd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // EOF: hvdrun is gone
    for (ssize_t i = 0; i < n; ++i) {
      if (buf[i] == '\n') {
        if (!overlong) apply(line, len);
        len = 0;
        overlong = false;
      } else if (len < sizeof(line)) {
        line[len++] = buf[i];
      } else {
        overlong = true;
      }
    }
  }
  for (int i = 0; i < g_num_groups; ++i) kill(-g_groups[i], SIGKILL);
  if (g_run_id[0] != '\0') remove_run_segments(g_run_id);
  _exit(0);
}

}  // namespace

Guard Guard::start() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    throw LaunchError(str_cat("cannot create the guard's pipe: ", std::strerror(errno)));
  }
  net::Fd read_end(fds[0]);
  net::Fd write_end(fds[1]);
  const pid_t middle = fork();
  if (middle < 0) throw LaunchError(str_cat("cannot fork the guard: ", std::strerror(errno)));
  if (middle == 0) {
    // The middle process only forks the guard and exits, so the guard is re-parented away
    // from hvdrun at once.
    ::close(fds[1]);
    const pid_t guard = fork();
    if (guard == 0) guard_main(fds[0]);
    _exit(guard < 0 ? 1 : 0);
  }
  read_end.reset();
  int status = 0;
  while (waitpid(middle, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    throw LaunchError("cannot fork the guard process");
  }
  if (fcntl(write_end.get(), F_SETFL, O_NONBLOCK) != 0) {
    throw LaunchError(str_cat("guard pipe: ", std::strerror(errno)));
  }
  Guard g;
  g.pipe_ = std::move(write_end);
  return g;
}

Guard::~Guard() { finish(); }

void Guard::send(const std::string& line) {
  if (!pipe_.valid()) return;
  // One write of fewer than PIPE_BUF bytes: atomic. EAGAIN means a guard that does not read
  // (stopped): hvdrun goes on rather than wait for it.
  while (::write(pipe_.get(), line.data(), line.size()) < 0 && errno == EINTR) {
  }
}

void announce_own_group(int registration_fd) noexcept {
  if (registration_fd < 0) return;
  char line[16];
  size_t len = sizeof(line);
  line[--len] = '\n';
  for (pid_t pgid = getpgrp(); pgid > 0 && len > 1; pgid /= 10) {
    line[--len] = static_cast<char>('0' + pgid % 10);
  }
  line[--len] = '+';
  while (::write(registration_fd, line + len, sizeof(line) - len) < 0 && errno == EINTR) {
  }
}

void Guard::forget_group(pid_t pgid) { send(str_cat("-", pgid, "\n")); }

void Guard::watch_run_segments(const std::string& run_id) {
  if (!valid_run_id(run_id)) return;
  run_id_ = run_id;
  send(str_cat("s", run_id, "\n"));
}

void Guard::end_run_segments() {
  if (!run_id_.empty()) remove_run_segments(run_id_.c_str());
  run_id_.clear();
}

void Guard::finish() {
  end_run_segments();
  pipe_.reset();
}

}  // namespace hvd::launcher::exec
