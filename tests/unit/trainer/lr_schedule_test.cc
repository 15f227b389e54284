// SPDX-License-Identifier: Apache-2.0
#include "lr_schedule.h"

#include <doctest/doctest.h>

using hvd::train::LrSchedule;

TEST_CASE("lr_schedule: linear scaling multiplies by the ranks only when asked") {
  CHECK(LrSchedule{0.1, 4, false, 0, 100}.at(0) == doctest::Approx(0.1));
  CHECK(LrSchedule{0.1, 4, true, 0, 100}.at(0) == doctest::Approx(0.4));
  CHECK(LrSchedule{0.1, 4, true, 0, 100}.at(12345) == doctest::Approx(0.4));
}

TEST_CASE("lr_schedule: warmup ramps linearly from the one-rank lr to the scaled lr") {
  const LrSchedule s{0.1, 8, true, 5, 100};  // Goyal et al.: 5 epochs of warmup
  CHECK(s.at(0) == doctest::Approx(0.1));
  CHECK(s.at(250) == doctest::Approx(0.1 + 0.7 * 0.5));
  CHECK(s.at(499) < 0.8);
  CHECK(s.at(500) == doctest::Approx(0.8));
  CHECK(s.at(10000) == doctest::Approx(0.8));
  SUBCASE("one rank has nothing to warm up to") {
    CHECK(LrSchedule{0.1, 1, true, 5, 100}.at(10) == doctest::Approx(0.1));
  }
}
