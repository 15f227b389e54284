// SPDX-License-Identifier: Apache-2.0
#include "exec/fd_limit.h"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <doctest/doctest.h>

#include <string>

#include "exec/rank_process.h"
#include "hvd/error.h"

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

TEST_CASE("fd limit: more local ranks than descriptors is refused before any fork") {
  // -np 100000 used to fork for minutes, fail at a pipe halfway through, and ignore Ctrl-C
  // while it cleaned up.
  rlimit saved{};
  REQUIRE(getrlimit(RLIMIT_NOFILE, &saved) == 0);
  if (saved.rlim_max != RLIM_INFINITY && saved.rlim_max < 512) return;  // no room to test
  rlimit low = saved;
  low.rlim_cur = 512;
  REQUIRE(setrlimit(RLIMIT_NOFILE, &low) == 0);
  CHECK_NOTHROW(exec::require_fds_for_ranks(100, 4));
  CHECK_THROWS_WITH_AS(exec::require_fds_for_ranks(1000, 4),
                       "-np 1000: starting that many ranks on this machine takes about 4064 open "
                       "files in hvdrun, over its limit of 512 (ulimit -Hn); start fewer ranks, "
                       "or raise the limit",
                       hvd::LaunchError);
  REQUIRE(setrlimit(RLIMIT_NOFILE, &saved) == 0);
}
