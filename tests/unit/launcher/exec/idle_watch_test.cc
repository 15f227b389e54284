// SPDX-License-Identifier: Apache-2.0
#include "exec/idle_watch.h"

#include <doctest/doctest.h>

using hvd::launcher::exec::IdleWatch;
using hvd::launcher::exec::rank_ranges;
using std::chrono::seconds;

TEST_CASE("idle watch: any rank's output moves the deadline, silence past it expires") {
  const IdleWatch::Clock::time_point t0{};
  IdleWatch w(3, seconds(10), t0);
  CHECK(w.enabled());
  CHECK(w.deadline() == t0 + seconds(10));
  CHECK_FALSE(w.expired(t0 + seconds(9)));
  w.saw_output(2, t0 + seconds(8));
  CHECK_FALSE(w.expired(t0 + seconds(17)));  // rank 2 spoke at 8: the job is not silent
  CHECK(w.expired(t0 + seconds(18)));
  SUBCASE("output of no rank (srun's own, out of range) does not count") {
    w.saw_output(-1, t0 + seconds(15));
    w.saw_output(3, t0 + seconds(15));
    CHECK(w.expired(t0 + seconds(18)));
  }
  SUBCASE("an older time never moves the deadline back") {
    w.saw_output(0, t0 + seconds(1));
    CHECK(w.deadline() == t0 + seconds(18));
  }
}

TEST_CASE("idle watch: a timeout of 0 never expires") {
  const IdleWatch w(2, seconds(0), IdleWatch::Clock::time_point{});
  CHECK_FALSE(w.enabled());
  CHECK_FALSE(w.expired(IdleWatch::Clock::time_point{} + seconds(100000)));
}

TEST_CASE("idle watch: the report names each rank's last output, longest silence first") {
  const IdleWatch::Clock::time_point t0{};
  IdleWatch w(6, seconds(30), t0);
  w.saw_output(1, t0 + seconds(5));
  w.saw_output(3, t0 + std::chrono::milliseconds(5400));  // the same second as rank 1
  w.saw_output(4, t0 + seconds(12));
  const std::string text = w.report(t0 + seconds(42), IdleWatch::WallClock::now());
  CHECK(text.find("no output from any rank for 30 s (--idle-timeout 30):") == 0);
  const size_t never = text.find("ranks 0,2,5 wrote nothing since the start at ");
  const size_t at5 = text.find("ranks 1,3 silent since ");
  const size_t at12 = text.find("rank 4 silent since ");
  REQUIRE(never != std::string::npos);
  REQUIRE(at5 != std::string::npos);
  REQUIRE(at12 != std::string::npos);
  CHECK(never < at5);
  CHECK(at5 < at12);
  CHECK(text.find("(42 s ago)") != std::string::npos);
  CHECK(text.find("(37 s ago)") != std::string::npos);
  CHECK(text.find("(30 s ago)") != std::string::npos);
  CHECK(text.find("; stopping the job") != std::string::npos);
}

TEST_CASE("idle watch: rank ranges") {
  CHECK(rank_ranges({}).empty());
  CHECK(rank_ranges({4}) == "4");
  CHECK(rank_ranges({0, 1, 2, 5, 7, 8, 9}) == "0-2,5,7-9");
  CHECK(rank_ranges({0, 2}) == "0,2");
}
