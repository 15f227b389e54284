// SPDX-License-Identifier: Apache-2.0
#include "exec/fd_limit.h"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <doctest/doctest.h>

#include <string>

#include "exec/rank_process.h"

namespace exec = hvd::launcher::exec;

namespace {

// What a program started by spawn_rank reports as its soft limit.
std::string child_soft_limit() {
  exec::SpawnRequest request;
  request.program = "/bin/sh";
  request.argv = {"sh", "-c", "ulimit -Sn"};
  request.env = {"PATH=/usr/bin:/bin"};
  exec::RankProcess p = exec::spawn_rank(request);
  REQUIRE(exec::wait_for_exec(p) == 0);
  std::string out;
  char buf[256];
  for (ssize_t n; (n = ::read(p.out.get(), buf, sizeof(buf))) > 0;) {
    out.append(buf, static_cast<size_t>(n));
  }
  int status = 0;
  waitpid(p.pid, &status, 0);
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

}  // namespace

TEST_CASE("fd limit: hvdrun raises its soft limit, its children get the user's back") {
  rlimit limit{};
  REQUIRE(getrlimit(RLIMIT_NOFILE, &limit) == 0);
  if (limit.rlim_max != RLIM_INFINITY && limit.rlim_max < 1024) return;  // no room to test
  limit.rlim_cur = 512;  // the user's soft limit, below the hard one
  REQUIRE(setrlimit(RLIMIT_NOFILE, &limit) == 0);

  exec::raise_fd_limit();
  rlimit raised{};
  REQUIRE(getrlimit(RLIMIT_NOFILE, &raised) == 0);
  CHECK(raised.rlim_cur == raised.rlim_max);
  CHECK(child_soft_limit() == "512");
}
