// SPDX-License-Identifier: Apache-2.0
#include "report/gnuplot_runner.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "exec/program_lookup.h"
#include "files/atomic_file.h"
#include "hvd/error.h"
#include "net/socket.h"

namespace hvd::launcher::report {
namespace {

namespace fs = std::filesystem;

// A scratch folder (mkdtemp: an unpredictable name, mode 0700) inside the output folder,
// removed with everything in it when the report is done or has failed.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& parent) {
    std::string pattern = (fs::path(parent) / ".hvdrun-report-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) {
      throw LaunchError(str_cat("cannot create a scratch folder in ", parent, ": ",
                                std::strerror(errno), "; is -o a writable folder?"));
    }
    path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

void write_file(const fs::path& path, const std::string& content) {
  std::ofstream out(path, std::ios::binary);
  out << content;
  if (!out.flush()) throw LaunchError(str_cat("cannot write ", path.string()));
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in || in.bad()) throw LaunchError(str_cat("cannot read what gnuplot drew: ", path.string()));
  return text.str();
}

// Runs `gnuplot script` in `dir`; returns its exit status and what it wrote to stderr.
// Killed (and reported as a timeout) once `limit` has passed.
std::pair<int, std::string> run_gnuplot(const std::string& gnuplot, const std::string& dir,
                                        const std::string& script, std::chrono::seconds limit) {
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) throw LaunchError(str_cat("pipe: ", std::strerror(errno)));
  net::Fd read_end(pipe_fds[0]), write_end(pipe_fds[1]);
  const pid_t pid = fork();
  if (pid < 0) throw LaunchError(str_cat("fork: ", std::strerror(errno)));
  if (pid == 0) {
    const int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (chdir(dir.c_str()) != 0 || devnull < 0 || dup2(devnull, 0) < 0 || dup2(devnull, 1) < 0 ||
        dup2(write_end.get(), 2) < 0) {
      _exit(127);
    }
    execl(gnuplot.c_str(), "gnuplot", script.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  write_end = net::Fd();
  std::string err;
  const auto deadline = std::chrono::steady_clock::now() + limit;
  bool timed_out = false;
  for (char buf[4096];;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    pollfd pfd{read_end.get(), POLLIN, 0};
    if (left.count() <= 0 || poll(&pfd, 1, static_cast<int>(left.count())) == 0) {
      timed_out = true;
      kill(pid, SIGKILL);
      break;
    }
    const ssize_t n = read(read_end.get(), buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    err.append(buf, static_cast<size_t>(n));
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out) {
    throw LaunchError(
        str_cat("gnuplot did not finish within ", limit.count(), " s; nothing was written"));
  }
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), err};
}

}  // namespace

std::string find_gnuplot(const EnvMap& env) {
  if (std::optional<std::string> path = exec::find_in_path("gnuplot", env)) return *path;
  throw LaunchError(
      "gnuplot was not found in PATH; hvdrun report draws with it: install it "
      "(Debian: apt-get install gnuplot-nox)");
}

std::vector<std::string> render(const std::string& gnuplot, const std::string& output_dir,
                                const std::vector<std::pair<std::string, std::string>>& files,
                                const std::string& script, const std::vector<std::string>& outputs,
                                std::chrono::seconds limit) {
  std::error_code ec;
  fs::create_directories(output_dir, ec);
  if (ec) throw LaunchError(str_cat("cannot create ", output_dir, ": ", ec.message()));
  ScratchDir scratch(output_dir);
  for (const auto& [name, content] : files) write_file(fs::path(scratch.path()) / name, content);
  write_file(fs::path(scratch.path()) / "report.gp", script);
  const auto [code, err] = run_gnuplot(gnuplot, scratch.path(), "report.gp", limit);
  if (code != 0) {
    throw LaunchError(str_cat("gnuplot failed (exit ", code,
                              "): ", err.empty() ? "no message" : err, "; nothing was written"));
  }
  for (const std::string& name : outputs) {  // all drawn before any is moved into place
    if (fs::file_size(fs::path(scratch.path()) / name, ec) == 0 || ec) {
      throw LaunchError(str_cat("gnuplot drew no ", name, " (", err, "); nothing was written"));
    }
  }
  // Through hvd::files: each picture is copied to a mkstemp name beside its target, fsynced and
  // renamed over it, so a crash leaves the old picture or the new one, and a symlink planted
  // at the target is replaced, never written through.
  std::vector<std::string> written;
  for (const std::string& name : outputs) {
    const fs::path target = fs::path(output_dir) / name;
    files::write_file_atomically(target.string(), read_file(fs::path(scratch.path()) / name));
    written.push_back(target.string());
  }
  return written;
}

}  // namespace hvd::launcher::report
