// SPDX-License-Identifier: Apache-2.0
#pragma once
// Running hvdrun as a real process from the integration tests: capture its output and exit
// code, signal it, and check which processes are still alive afterwards.

#include <sys/types.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace hvd::test {

/// An extra_env value that removes the variable instead of setting it.
inline const std::string kUnset = "\x7f<unset>";

struct ProcessResult {
  int exit_code = -1;  // 128+S when killed by signal S, as a shell reports it
  std::string out;
  std::string err;
};

/// A child process whose stdout and stderr go to files in a private temporary folder.
class Subprocess {
 public:
  /// Starts argv[0] (a path) with the current environment plus `extra_env`.
  explicit Subprocess(const std::vector<std::string>& argv,
                      const std::map<std::string, std::string>& extra_env = {});
  ~Subprocess();  // kills the process (and its group) if it is still running
  Subprocess(const Subprocess&) = delete;
  Subprocess& operator=(const Subprocess&) = delete;

  pid_t pid() const { return pid_; }
  void send(int sig) const;
  /// Waits for the exit. A process still running after `limit` is killed and the test fails:
  /// this bounds a hang, it is not a timing assertion.
  ProcessResult wait(std::chrono::seconds limit = std::chrono::seconds(120));

 private:
  pid_t pid_ = -1;
  std::string dir_;
  bool reaped_ = false;
};

/// Runs to completion; see Subprocess::wait.
ProcessResult run(const std::vector<std::string>& argv,
                  const std::map<std::string, std::string>& extra_env = {},
                  std::chrono::seconds limit = std::chrono::seconds(120));

/// A fresh empty folder under the build's temporary area; removed by the destructor.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

bool process_alive(pid_t pid);
/// Polls until `count` files named PREFIX.* exist in `dir`; false if `limit` passes first.
bool wait_for_files(const std::string& dir, const std::string& prefix, int count,
                    std::chrono::seconds limit = std::chrono::seconds(60));
/// Pids written by rank_probe as files PREFIX.N in `dir`.
std::vector<pid_t> read_pids(const std::string& dir, const std::string& prefix);
/// Polls until none of `pids` is alive; false if `limit` passes first.
bool wait_until_dead(const std::vector<pid_t>& pids,
                     std::chrono::seconds limit = std::chrono::seconds(30));
std::vector<std::string> split_lines(const std::string& text);
std::string read_text(const std::string& path);
/// Replaces the file's contents with `text`; throws if it cannot be written.
void write_text(const std::string& path, const std::string& text);

}  // namespace hvd::test
