// SPDX-License-Identifier: Apache-2.0
#include "diag/native_stack.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sstream>
#include <vector>

#include "hvd/str_cat.h"
#include "net/socket.h"

extern char** environ;

namespace hvd::diag {
namespace {

constexpr size_t kMaxStackBytes = size_t{128} << 10;

std::string find_on_path(const std::string& path_env, const std::string& program) {
  std::stringstream dirs(path_env);
  for (std::string dir; std::getline(dirs, dir, ':');) {
    if (dir.empty() || dir[0] != '/') continue;  // never the working folder
    const std::string candidate = dir + "/" + program;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return {};
}

// Reads `fd` until EOF, the cap or the deadline; returns false on the deadline.
bool read_until(int fd, std::chrono::steady_clock::time_point deadline, std::string& out) {
  char buffer[8192];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd p{fd, POLLIN, 0};
    const int ready = poll(&p, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) return ready == 0 ? false : true;
    const ssize_t n = read(fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return true;
    if (out.size() < kMaxStackBytes) out.append(buffer, static_cast<size_t>(n));
  }
}

}  // namespace

std::string native_stack_of_self(const std::string& path_env, std::chrono::milliseconds timeout) {
  const std::string program = find_on_path(path_env, "eu-stack");
  if (program.empty()) return "eu-stack not found on PATH (Debian package elfutils)";
  // Under Yama's ptrace_scope 1 only a declared tracer and its children may attach: declare
  // ourselves, so that our own child eu-stack can (no-op where Yama is absent).
  prctl(PR_SET_PTRACER, static_cast<unsigned long>(getpid()), 0, 0, 0);
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return str_cat("pipe failed: ", std::strerror(errno));
  net::Fd read_end(fds[0]), write_end(fds[1]);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, write_end.get(), STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, write_end.get(), STDERR_FILENO);
  const std::string pid_text = std::to_string(getpid());
  std::vector<std::string> args = {"eu-stack", "-p", pid_text, "-m", "-s", "-n", "24"};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t child = -1;
  const int rc = posix_spawn(&child, program.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  write_end.reset();
  if (rc != 0) return str_cat("cannot start ", program, ": ", std::strerror(rc));
  std::string out;
  const bool finished = read_until(read_end.get(), std::chrono::steady_clock::now() + timeout, out);
  if (!finished) kill(child, SIGKILL);
  while (waitpid(child, nullptr, 0) < 0 && errno == EINTR) {
  }
  if (!finished) out += str_cat("\n(eu-stack took longer than ", timeout.count(), " ms: cut off)");
  return out;
}

}  // namespace hvd::diag
