// SPDX-License-Identifier: Apache-2.0
// run_for_output(): helpers run without a shell, each argument one argv element, in exactly the
// environment given, and cut off when they hang or flood. The helpers are tiny /bin/sh scripts
// (the shell here is the helper itself, not something hvdrun starts to run it).
#include <doctest/doctest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "proc/command_output.h"

namespace proc = hvd::launcher::proc;
namespace fs = std::filesystem;
using std::chrono::milliseconds;

namespace {

// A private folder holding executable scripts; removed with the object.
class ScriptDir {
 public:
  ScriptDir() {
    std::string pattern = (fs::temp_directory_path() / "hvd-cmdout-XXXXXX").string();
    REQUIRE(mkdtemp(pattern.data()) != nullptr);
    path_ = pattern;
  }
  ~ScriptDir() { fs::remove_all(path_); }
  ScriptDir(const ScriptDir&) = delete;
  ScriptDir& operator=(const ScriptDir&) = delete;

  std::string script(const std::string& name, const std::string& body) const {
    const std::string file = path_ + "/" + name;
    std::ofstream(file) << "#!/bin/sh\n" << body << "\n";
    chmod(file.c_str(), 0700);
    return file;
  }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

}  // namespace

TEST_CASE("command output: every argument arrives as one argv element, and no shell runs it") {
  ScriptDir dir;
  const std::string record = dir.script("record", "printf '%s\\n' \"$#\"; printf '[%s]\\n' \"$@\"");
  const std::string marker = dir.file("ran");
  const std::string nasty =
      "n1;touch " + marker + " $(touch " + marker + ") `touch " + marker + "` '\"&|>" + marker;
  const proc::CommandOutput r = proc::run_for_output({record, nasty, "two words", ""}, {});
  CHECK(r.exit_code == 0);
  CHECK(r.out == "3\n[" + nasty + "]\n[two words]\n[]\n");
  CHECK_FALSE(fs::exists(marker));
}

TEST_CASE("command output: the helper sees exactly the environment it is given") {
  ScriptDir dir;
  const std::string show = dir.script("show", "printf '%s|%s' \"$HVD_X\" \"${HOME-unset}\"");
  const proc::CommandOutput r = proc::run_for_output({show}, {{"HVD_X", "a b;c"}});
  CHECK(r.exit_code == 0);
  CHECK(r.out == "a b;c|unset");
}

TEST_CASE("command output: exit codes, a missing program, a helper killed by a signal") {
  ScriptDir dir;
  CHECK(proc::run_for_output({dir.script("fail", "echo partial; exit 3")}, {}).exit_code == 3);
  CHECK(proc::run_for_output({dir.file("absent")}, {}).exit_code == 127);
  CHECK(proc::run_for_output({dir.script("die", "kill -TERM $$")}, {}).exit_code == 128 + SIGTERM);
}

TEST_CASE("command output: a helper that hangs is killed at the timeout, with what it said") {
  ScriptDir dir;
  // Its child holds stdout open too: the whole group must go.
  const std::string hang = dir.script("hang", "echo started; sleep 600 & sleep 600");
  const proc::CommandOutput r = proc::run_for_output({hang}, {}, {milliseconds(300), 1 << 20});
  CHECK(r.timed_out);
  CHECK(r.exit_code == 128 + SIGKILL);
  CHECK(r.out == "started\n");
  SUBCASE("also one that closed its stdout and goes on") {
    const std::string quiet = dir.script("quiet", "exec >/dev/null; sleep 600");
    const proc::CommandOutput q = proc::run_for_output({quiet}, {}, {milliseconds(300), 1 << 20});
    CHECK(q.timed_out);
    CHECK(q.exit_code == 128 + SIGKILL);
  }
}

TEST_CASE("command output: a helper that floods is cut at the bound and killed") {
  ScriptDir dir;
  const std::string flood = dir.script("flood", "while :; do echo xxxxxxxxxxxxxxx; done");
  const proc::CommandOutput r = proc::run_for_output({flood}, {}, {milliseconds(60000), 1000});
  CHECK(r.cut);
  CHECK_FALSE(r.timed_out);
  CHECK(r.out.size() == 1000);
}

TEST_CASE("command output: stdin is handed over whole and closed, also when large") {
  ScriptDir dir;
  const std::string count = dir.script("count", "wc -c; echo err-said >&2");
  const std::string script(300000, 'x');  // more than a pipe buffer: fed while the tool reads
  proc::CommandInput input;
  input.stdin_bytes = script;
  const proc::CommandOutput r = proc::run_for_output({count}, {}, {}, input);
  CHECK(r.exit_code == 0);
  CHECK(r.out == "300000\n");
  CHECK(r.err.empty());  // not captured unless asked
  SUBCASE("a tool that never reads its stdin is not waited on forever") {
    const std::string deaf = dir.script("deaf", "exec 0<&-; echo done");
    const proc::CommandOutput d = proc::run_for_output({deaf}, {}, {milliseconds(5000)}, input);
    CHECK(d.exit_code == 0);
    CHECK(d.out == "done\n");
    CHECK_FALSE(d.timed_out);
  }
}

TEST_CASE("command output: stderr is captured up to its own bound, and the tool runs on") {
  ScriptDir dir;
  const std::string noisy =
      dir.script("noisy",
                 "i=0; while [ $i -lt 2000 ]; do echo eeeeeeeee >&2; i=$((i+1)); done; "
                 "echo out-end");
  proc::CommandInput input;
  input.capture_stderr = true;
  proc::OutputLimits limits;
  limits.max_err_bytes = 100;
  const proc::CommandOutput r = proc::run_for_output({noisy}, {}, limits, input);
  CHECK(r.exit_code == 0);
  CHECK(r.out == "out-end\n");
  CHECK(r.err.substr(0, 10) == "eeeeeeeee\n");
  CHECK(r.err.size() == 100);
  CHECK(r.err_cut);
  CHECK_FALSE(r.cut);
}

TEST_CASE("command output: the tool starts in the folder given as a descriptor") {
  ScriptDir dir;
  const std::string pwd = dir.script("where", "pwd -P");
  const int fd = open(dir.file("").c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  proc::CommandInput input;
  input.cwd_fd = fd;
  const proc::CommandOutput r = proc::run_for_output({pwd}, {}, {}, input);
  close(fd);
  CHECK(r.out == fs::canonical(dir.file("")).string() + "\n");
}

TEST_CASE("command output: at the timeout the whole group is killed, stderr kept") {
  ScriptDir dir;
  const std::string pid_file = dir.file("grandchild");
  const std::string hang =
      dir.script("hang", "echo waiting >&2; sleep 600 & echo $! > " + pid_file + "; wait");
  proc::CommandInput input;
  input.capture_stderr = true;
  const auto start = std::chrono::steady_clock::now();
  const proc::CommandOutput r = proc::run_for_output({hang}, {}, {milliseconds(300)}, input);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(30));
  CHECK(r.timed_out);
  CHECK(r.exit_code == 128 + SIGKILL);
  CHECK(r.err == "waiting\n");
  std::ifstream in(pid_file);
  pid_t grandchild = 0;
  REQUIRE(static_cast<bool>(in >> grandchild));
  // Killed with its group: gone, or a zombie until init reaps it (SIGKILL takes effect when
  // the process next runs, so it is given a moment).
  std::string state = "?";
  for (int i = 0; i < 400 && state != "Z" && !state.empty(); ++i) {
    std::ifstream stat("/proc/" + std::to_string(grandchild) + "/stat");
    std::string pid_text, comm;
    if (!(stat >> pid_text >> comm >> state)) state.clear();
    if (state != "Z" && !state.empty()) usleep(5000);
  }
  CHECK((state.empty() || state == "Z"));
}

TEST_CASE("command output: a SIGINT to hvdrun while it waits kills the tool's group first") {
  // In a child process, as hvdrun: SIGINT at its default disposition ends the process after
  // the tool's group is killed; the tool, in a group of its own, would not get a terminal's
  // Ctrl-C by itself.
  ScriptDir dir;
  const std::string pid_file = dir.file("tool");
  const std::string hang = dir.script("hang", "echo $$ > " + pid_file + "; exec sleep 600");
  const pid_t hvdrun = fork();
  REQUIRE(hvdrun >= 0);
  if (hvdrun == 0) {
    signal(SIGINT, SIG_DFL);
    proc::run_for_output({hang}, {}, {milliseconds(60000)});
    _exit(0);
  }
  pid_t tool = 0;
  for (int i = 0; i < 2000 && tool == 0; ++i) {
    std::ifstream in(pid_file);
    if (!(in >> tool)) usleep(5000);
  }
  REQUIRE(tool > 0);
  kill(hvdrun, SIGINT);
  int status = 0;
  REQUIRE(waitpid(hvdrun, &status, 0) == hvdrun);
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGINT);
  CHECK(kill(tool, 0) != 0);  // reaped by run_for_output before the signal took its course
}
