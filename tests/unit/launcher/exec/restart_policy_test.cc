// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include "exec/restart_policy.h"

using hvd::launcher::exec::RunOutcome;
using hvd::launcher::exec::restart_message;
using hvd::launcher::exec::should_restart;

TEST_CASE("restart policy: torchrun's rules") {
  const RunOutcome failed{3, 0, "rank 1"};
  const RunOutcome clean{0, 0, ""};
  const RunOutcome interrupted{143, 15, ""};
  CHECK(should_restart(failed, 0, 2));
  CHECK(should_restart(failed, 1, 2));
  CHECK_FALSE(should_restart(failed, 2, 2));  // ran out: the failure's code is the job's
  CHECK_FALSE(should_restart(failed, 0, 0));  // the default: no restarts
  CHECK_FALSE(should_restart(clean, 0, 2));
  CHECK_FALSE(should_restart(interrupted, 0, 2));
  SUBCASE("a failure after a preemption notice is left to --requeue-on-signal, never restarted") {
    RunOutcome preempted{3, 0, "rank 1"};
    preempted.notice = true;
    CHECK_FALSE(should_restart(preempted, 0, 2));
  }
  SUBCASE("a rank that fails while hvdrun stops the job for a signal is no reason either") {
    CHECK_FALSE(should_restart(RunOutcome{3, 15, "rank 1"}, 0, 2));
  }
}

TEST_CASE("restart policy: the line names the attempt, the rank and its code") {
  CHECK(restart_message(RunOutcome{3, 0, "rank 1"}, 1, 2) ==
        "restart 1 of 2 after rank 1 failed (exit 3)");
  CHECK(restart_message(RunOutcome{139, 0, "rank 0"}, 2, 2) ==
        "restart 2 of 2 after rank 0 failed (exit 139)");
}
