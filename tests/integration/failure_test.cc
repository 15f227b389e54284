// SPDX-License-Identifier: Apache-2.0
// A failing rank stops the job: hvdrun names it, exits with its code, and leaves nothing behind.

#include <signal.h>

#include <doctest/doctest.h>

#include "integration/hvdrun_test_util.h"

using namespace hvd::test;

TEST_CASE("one rank exits 3: hvdrun exits 3, names it, and no rank survives") {
  TempDir dir;
  const ProcessResult r =
      run(hvdrun({"-np", "4", "--", RANK_PROBE_EXE, "fail", "2", "3", dir.path()}));
  CHECK(r.exit_code == 3);
  CHECK(r.err.find("hvdrun: rank 2 ") != std::string::npos);
  CHECK(r.err.find("exited with code 3") != std::string::npos);
  const auto pids = read_pids(dir.path(), "pid");
  CHECK(pids.size() == 4);
  for (pid_t pid : pids) CHECK_FALSE(process_alive(pid));  // reaped before hvdrun returned
}

TEST_CASE("a rank killed by a signal: hvdrun exits 128+signal and says which") {
  TempDir dir;
  const ProcessResult r = run(hvdrun({"-np", "3", "--", RANK_PROBE_EXE, "crash", "1",
                                      std::to_string(SIGSEGV), dir.path()}));
  CHECK(r.exit_code == 128 + SIGSEGV);
  CHECK(r.err.find("rank 1 ") != std::string::npos);
  CHECK(r.err.find("SIGSEGV") != std::string::npos);
  for (pid_t pid : read_pids(dir.path(), "pid")) CHECK_FALSE(process_alive(pid));
}

TEST_CASE("ranks that ignore SIGTERM are killed after the grace period") {
  TempDir dir;
  // Rank 0 fails at once; the stubborn ones must be SIGKILLed.
  const ProcessResult r = run(hvdrun({"-np", "3", "--kill-grace-seconds", "1", "--", "/bin/sh",
                                      "-c",
                                      std::string("if [ \"$HOROVOD_RANK\" = 0 ]; then sleep 0.5; "
                                                  "exit 4; fi; exec ") +
                                          RANK_PROBE_EXE + " stubborn " + dir.path()}));
  CHECK(r.exit_code == 4);
  CHECK(r.err.find("sending SIGKILL") != std::string::npos);
  for (pid_t pid : read_pids(dir.path(), "pid")) CHECK_FALSE(process_alive(pid));
}

TEST_CASE("what a rank leaves running is stopped with it") {
  TempDir dir;
  const ProcessResult r = run(hvdrun({"-np", "2", "--", RANK_PROBE_EXE, "orphan", dir.path()}));
  CHECK(r.exit_code == 0);
  const auto children = read_pids(dir.path(), "child");
  CHECK(children.size() == 2);
  CHECK(wait_until_dead(children));
}

TEST_CASE("ranks die with hvdrun even when hvdrun is SIGKILLed") {
  TempDir dir;
  Subprocess p(hvdrun({"-np", "3", "--", RANK_PROBE_EXE, "trap", dir.path()}));
  REQUIRE(wait_for_files(dir.path(), "pid", 3));
  const auto pids = read_pids(dir.path(), "pid");
  p.send(SIGKILL);
  CHECK(p.wait().exit_code == 128 + SIGKILL);
  CHECK(wait_until_dead(pids));
}
