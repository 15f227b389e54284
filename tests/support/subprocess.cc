// SPDX-License-Identifier: Apache-2.0
#include "support/subprocess.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace hvd::test {
namespace fs = std::filesystem;

namespace {
std::string make_temp_dir() {
  // Under the build tree, not /tmp: the Slurm test nodes get a private /tmp, and the tests
  // share folders with the ranks.
  const fs::path base = HVD_TEST_TMP_DIR;
  fs::create_directories(base);
  std::string pattern = (base / "XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  return pattern;
}
}  // namespace

TempDir::TempDir() : path_(make_temp_dir()) {}
TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::trunc);
  out << text;
  if (!out.flush()) throw std::runtime_error("cannot write " + path);
}

Subprocess::Subprocess(const std::vector<std::string>& argv,
                       const std::map<std::string, std::string>& extra_env)
    : dir_(make_temp_dir()) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry(*e);
    if (extra_env.count(entry.substr(0, entry.find('='))) == 0) env.push_back(entry);
  }
  for (const auto& [k, v] : extra_env) {
    if (v != kUnset) env.push_back(k + "=" + v);
  }
  std::vector<char*> cargv, cenv;
  for (const std::string& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  for (const std::string& e : env) cenv.push_back(const_cast<char*>(e.c_str()));
  cargv.push_back(nullptr);
  cenv.push_back(nullptr);
  const std::string out = dir_ + "/out", err = dir_ + "/err";
  pid_ = fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    setpgid(0, 0);
    // O_CLOEXEC: only the dup2'ed copies reach hvdrun, so that a rank's descriptors show what
    // hvdrun itself leaked and nothing of the harness's.
    const int o = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    const int e = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    dup2(o, 1);
    dup2(e, 2);
    close_range(3, ~0U, 0);  // whatever the test runner left open is not hvdrun's to pass on
    execve(cargv[0], cargv.data(), cenv.data());
    _exit(127);
  }
}

Subprocess::~Subprocess() {
  if (!reaped_ && pid_ > 0) {
    kill(-pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  std::error_code ec;
  fs::remove_all(dir_, ec);
}

void Subprocess::send(int sig) const { kill(pid_, sig); }

ProcessResult Subprocess::wait(std::chrono::seconds limit) {
  ProcessResult r;
  const auto deadline = std::chrono::steady_clock::now() + limit;
  int status = 0;
  while (waitpid(pid_, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(-pid_, SIGKILL);
      waitpid(pid_, &status, 0);
      reaped_ = true;
      throw std::runtime_error("process did not exit within the limit (a hang)");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  reaped_ = true;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = read_text(dir_ + "/out");
  r.err = read_text(dir_ + "/err");
  return r;
}

ProcessResult run(const std::vector<std::string>& argv,
                  const std::map<std::string, std::string>& extra_env, std::chrono::seconds limit) {
  Subprocess p(argv, extra_env);
  return p.wait(limit);
}

bool process_alive(pid_t pid) {
  if (kill(pid, 0) != 0) return false;
  // A zombie is dead for our purposes: it runs nothing and holds nothing.
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  std::getline(stat, text);
  const auto close = text.rfind(')');
  return close == std::string::npos || text.size() < close + 3 || text[close + 2] != 'Z';
}

bool wait_for_files(const std::string& dir, const std::string& prefix, int count,
                    std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  for (;;) {
    int found = 0;
    for (const auto& e : fs::directory_iterator(dir)) {
      const std::string name = e.path().filename().string();
      found += name.rfind(prefix + ".", 0) == 0 && e.path().extension() != ".tmp" ? 1 : 0;
    }
    if (found >= count) return true;
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

std::vector<pid_t> read_pids(const std::string& dir, const std::string& prefix) {
  std::vector<pid_t> pids;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.rfind(prefix + ".", 0) != 0 || e.path().extension() == ".tmp") continue;
    pids.push_back(static_cast<pid_t>(std::stol(read_text(e.path().string()))));
  }
  return pids;
}

bool wait_until_dead(const std::vector<pid_t>& pids, std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  for (;;) {
    bool any = false;
    for (pid_t p : pids) any = any || process_alive(p);
    if (!any) return true;
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::stringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace hvd::test
