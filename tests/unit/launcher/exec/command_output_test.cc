// SPDX-License-Identifier: Apache-2.0
// run_for_output(): helpers run without a shell, each argument one argv element, in exactly the
// environment given, and cut off when they hang or flood. The helpers are tiny /bin/sh scripts
// (the shell here is the helper itself, not something hvdrun starts to run it).
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "exec/command_output.h"

namespace exec = hvd::launcher::exec;
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
  const exec::CommandOutput r = exec::run_for_output({record, nasty, "two words", ""}, {});
  CHECK(r.exit_code == 0);
  CHECK(r.out == "3\n[" + nasty + "]\n[two words]\n[]\n");
  CHECK_FALSE(fs::exists(marker));
}

TEST_CASE("command output: the helper sees exactly the environment it is given") {
  ScriptDir dir;
  const std::string show = dir.script("show", "printf '%s|%s' \"$HVD_X\" \"${HOME-unset}\"");
  const exec::CommandOutput r = exec::run_for_output({show}, {{"HVD_X", "a b;c"}});
  CHECK(r.exit_code == 0);
  CHECK(r.out == "a b;c|unset");
}

TEST_CASE("command output: exit codes, a missing program, a helper killed by a signal") {
  ScriptDir dir;
  CHECK(exec::run_for_output({dir.script("fail", "echo partial; exit 3")}, {}).exit_code == 3);
  CHECK(exec::run_for_output({dir.file("absent")}, {}).exit_code == 127);
  CHECK(exec::run_for_output({dir.script("die", "kill -TERM $$")}, {}).exit_code == 128 + SIGTERM);
}

TEST_CASE("command output: a helper that hangs is killed at the timeout, with what it said") {
  ScriptDir dir;
  // Its child holds stdout open too: the whole group must go.
  const std::string hang = dir.script("hang", "echo started; sleep 600 & sleep 600");
  const exec::CommandOutput r = exec::run_for_output({hang}, {}, {milliseconds(300), 1 << 20});
  CHECK(r.timed_out);
  CHECK(r.exit_code == 128 + SIGKILL);
  CHECK(r.out == "started\n");
  SUBCASE("also one that closed its stdout and goes on") {
    const std::string quiet = dir.script("quiet", "exec >/dev/null; sleep 600");
    const exec::CommandOutput q = exec::run_for_output({quiet}, {}, {milliseconds(300), 1 << 20});
    CHECK(q.timed_out);
    CHECK(q.exit_code == 128 + SIGKILL);
  }
}

TEST_CASE("command output: a helper that floods is cut at the bound and killed") {
  ScriptDir dir;
  const std::string flood = dir.script("flood", "while :; do echo xxxxxxxxxxxxxxx; done");
  const exec::CommandOutput r = exec::run_for_output({flood}, {}, {milliseconds(60000), 1000});
  CHECK(r.cut);
  CHECK_FALSE(r.timed_out);
  CHECK(r.out.size() == 1000);
}
