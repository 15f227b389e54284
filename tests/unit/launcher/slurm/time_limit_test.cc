// SPDX-License-Identifier: Apache-2.0
#include "slurm/time_limit.h"

#include <doctest/doctest.h>

#include "hvd/error.h"

namespace slurm = hvd::launcher::slurm;

TEST_CASE("time_limit: every Slurm form") {
  CHECK(slurm::parse_time_limit("90") == 90 * 60);
  CHECK(slurm::parse_time_limit("5:30") == 5 * 60 + 30);
  CHECK(slurm::parse_time_limit("02:00:00") == 7200);
  CHECK(slurm::parse_time_limit("2-0") == 2 * 86400);
  CHECK(slurm::parse_time_limit("1-12:30") == 86400 + 12 * 3600 + 30 * 60);
  CHECK(slurm::parse_time_limit("3-00:00:10") == 3 * 86400 + 10);
  CHECK(slurm::format_time_limit(2 * 86400) == "2-00:00:00");
  CHECK(slurm::format_time_limit(3 * 3600 + 61) == "03:01:01");
  for (const char* bad : {"", "abc", "1:2:3:4", "-1", "1-", "1-2:x", "UNLIMITED", "1:-2"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(slurm::parse_time_limit(bad), hvd::UsageError);
  }
}
