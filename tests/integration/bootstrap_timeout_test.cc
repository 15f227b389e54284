// SPDX-License-Identifier: Apache-2.0
// HVD_BOOTSTRAP_TIMEOUT is the user's bound on the wait for the other ranks: with 3 s, a rank
// that never reaches hvd::init() (here: stopped before it) ends the job after about 3 s, not
// after the ring's old fixed 60 s. The error names the bound that ended the wait ("within
// 3000 ms"), which is what shows that nobody used the old one; no clock is asserted (the
// machine is shared, and a sanitizer build is slow).

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <doctest/doctest.h>

#include <chrono>
#include <map>
#include <string>

#include "integration/hvdrun_test_util.h"

using namespace hvd::test;

namespace {

// 2 ranks of fault_probe over `transport`; rank 1 stops before init. Returns hvdrun's result.
ProcessResult run_with_rank1_stopped(const std::string& transport) {
  TempDir dir;
  const std::map<std::string, std::string> env = {{"HVD_RING_TRANSPORT", transport},
                                                  {"HVD_BOOTSTRAP_TIMEOUT", "3"}};
  Subprocess p(hvdrun({"-np", "2", "--kill-grace-seconds", "1", "--", FAULT_PROBE_EXE,
                       "before-init", "1", dir.path()}),
               env);
  REQUIRE(wait_for_files(dir.path(), "ready", 1));
  const std::vector<pid_t> pids = read_pids(dir.path(), "pid");
  for (pid_t pid : pids) {
    if (read_text(dir.file("pid.1")) == std::to_string(pid)) kill(pid, SIGSTOP);
  }
  return p.wait(std::chrono::seconds(120));  // a hang guard only
}

}  // namespace

TEST_CASE("bootstrap timeout: a rank that never reaches init ends the job after the user's bound") {
  for (const char* transport : {"shm", "tcp"}) {
    CAPTURE(transport);
    const ProcessResult r = run_with_rank1_stopped(transport);
    CAPTURE(r.err);
    CHECK(r.exit_code == 3);  // fault_probe: hvd::init() failed
    CHECK(r.err.find("hvdrun: rank 0 ") != std::string::npos);
    CHECK(r.err.find(std::string("ring ") + transport +
                     ": rank 0: setup did not finish within 3000 ms (HVD_BOOTSTRAP_TIMEOUT)") !=
          std::string::npos);
    CHECK(r.err.find("rank 1 never showed up") != std::string::npos);
  }
}

// hvd-whoami waits for the store under the same variable: with 1 s and a store port where
// nobody listens, it ends with the store error naming that bound, not the old fixed 30 s.
TEST_CASE("bootstrap timeout: hvd-whoami gives up on an unreachable store after the user's bound") {
  // A port that is bound but never listened on: every connect is refused until the deadline.
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  REQUIRE(bind(fd, reinterpret_cast<sockaddr*>(&addr), len) == 0);
  REQUIRE(getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0);
  const std::map<std::string, std::string> env = {
      {"HOROVOD_RANK", "0"},
      {"HOROVOD_SIZE", "2"},
      {"HVD_STORE_ADDR", "127.0.0.1"},
      {"HVD_STORE_PORT", std::to_string(ntohs(addr.sin_port))},
      {"HVD_RUN_SECRET", std::string(64, 'a')},
      {"HVD_BOOTSTRAP_TIMEOUT", "1"}};
  const ProcessResult r = run({HVD_WHOAMI_EXE}, env, std::chrono::seconds(60));  // a hang guard
  close(fd);
  CAPTURE(r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("hvd-whoami: error: ") != std::string::npos);
  CHECK(r.err.find("within 1000 ms") != std::string::npos);
}
