// SPDX-License-Identifier: Apache-2.0
#include "exec/timeline_finish.h"

#include <doctest/doctest.h>

using hvd::launcher::exec::timeline_attempt_path;

TEST_CASE("timeline_attempt_path: the attempt before .json, or at the end") {
  CHECK(timeline_attempt_path("/tmp/tl.json", 0) == "/tmp/tl.attempt-0.json");
  CHECK(timeline_attempt_path("run/trace", 2) == "run/trace.attempt-2");
  CHECK(timeline_attempt_path(".json", 1) == ".json.attempt-1");  // no stem to keep it on
}
