// SPDX-License-Identifier: Apache-2.0
// Signals sent to hvdrun reach every rank.

#include <signal.h>

#include <doctest/doctest.h>

#include "integration/hvdrun_test_util.h"

using namespace hvd::test;

TEST_CASE("SIGUSR1 and SIGUSR2 reach every rank and the run goes on until SIGTERM ends it") {
  TempDir dir;
  Subprocess p(hvdrun({"-np", "4", "--", RANK_PROBE_EXE, "trap", dir.path()}));
  REQUIRE(wait_for_files(dir.path(), "pid", 4));
  const auto pids = read_pids(dir.path(), "pid");
  p.send(SIGUSR1);
  CHECK(wait_for_files(dir.path(), "USR1", 4));
  p.send(SIGUSR2);
  CHECK(wait_for_files(dir.path(), "USR2", 4));
  for (pid_t pid : pids) CHECK(process_alive(pid));  // still running after USR1/USR2
  p.send(SIGTERM);
  const ProcessResult r = p.wait();
  CHECK(r.exit_code == 128 + SIGTERM);
  CHECK(wait_for_files(dir.path(), "TERM", 4));
  for (pid_t pid : pids) CHECK_FALSE(process_alive(pid));
}

TEST_CASE("SIGINT is forwarded and hvdrun exits 130") {
  TempDir dir;
  Subprocess p(hvdrun({"-np", "2", "--", RANK_PROBE_EXE, "trap", dir.path()}));
  REQUIRE(wait_for_files(dir.path(), "pid", 2));
  p.send(SIGINT);
  const ProcessResult r = p.wait();
  CHECK(r.exit_code == 128 + SIGINT);
  CHECK(wait_for_files(dir.path(), "INT", 2));
  CHECK(r.err.find("received SIGINT") != std::string::npos);
}

TEST_CASE("--requeue-on-signal: ranks still running after the checkpoint grace get SIGTERM") {
  TempDir dir;
  // rank_probe trap records USR2 and goes on, then exits 0 on SIGTERM: a program that never
  // checkpoints. The grace is 1 s so the test is short; nothing here measures it.
  Subprocess p(hvdrun({"-np", "2", "--requeue-on-signal", "--checkpoint-grace-seconds", "1", "--",
                       RANK_PROBE_EXE, "trap", dir.path()}));
  REQUIRE(wait_for_files(dir.path(), "pid", 2));
  p.send(SIGUSR2);
  const ProcessResult r = p.wait();
  CHECK(wait_for_files(dir.path(), "USR2", 2));
  CHECK(wait_for_files(dir.path(), "TERM", 2));
  CHECK(r.err.find("received SIGUSR2 (preemption notice)") != std::string::npos);
  CHECK(r.err.find("2 rank(s) still running after the checkpoint grace; sending SIGTERM") !=
        std::string::npos);
  // Exited 0 on SIGTERM, but overran the grace: not requeued (and not in a job anyway).
  CHECK(r.err.find("not requeueing the job: ranks were still running at the end of the "
                   "checkpoint grace") != std::string::npos);
}
