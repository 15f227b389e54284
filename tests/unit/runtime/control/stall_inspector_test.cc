// SPDX-License-Identifier: Apache-2.0
#include "control/stall_inspector.h"

#include <doctest/doctest.h>

#include <chrono>
#include <string>
#include <vector>

#include "common/clock.h"
#include "hvd/error.h"

using hvd::FakeClock;
using hvd::control::format_stall_warning;
using hvd::control::StallConfig;
using hvd::control::StallInspector;
using hvd::control::StallReport;
using std::chrono::seconds;

namespace {

std::vector<std::string> names(const StallReport& r) {
  std::vector<std::string> out;
  for (const auto& s : r.stalled) out.push_back(s.name);
  return out;
}

}  // namespace

TEST_CASE("stall inspector: defaults are Horovod's, 60 s warning and no shutdown") {
  const StallConfig c;
  CHECK(c.warning_seconds == 60.0);
  CHECK(c.shutdown_seconds == 0.0);
}

TEST_CASE("stall inspector: no warning before the threshold") {
  FakeClock clock;
  StallInspector inspector(4, StallConfig{}, clock);
  inspector.record_ready("grad/layer2", 0);
  clock.advance(seconds(59));
  CHECK(inspector.check().stalled.empty());
  clock.advance(seconds(1));  // exactly 60 s: not yet "more than"
  CHECK(inspector.check().stalled.empty());
  clock.advance(seconds(1));
  CHECK(names(inspector.check()) == std::vector<std::string>{"grad/layer2"});
}

TEST_CASE("stall inspector: the warning names the tensor and exactly the missing ranks") {
  FakeClock clock;
  StallInspector inspector(4, StallConfig{10, 0}, clock);
  inspector.record_ready("grad/layer2", 0);
  inspector.record_ready("grad/layer2", 2);
  inspector.record_ready("grad/layer2", 2);  // a repeat changes nothing
  clock.advance(seconds(5));
  inspector.record_ready("grad/late", 1);  // has waited only 6 s at the check
  clock.advance(seconds(6));
  const StallReport r = inspector.check();
  REQUIRE(r.stalled.size() == 1);
  CHECK(r.stalled[0].name == "grad/layer2");
  CHECK(r.stalled[0].missing_ranks == std::vector<int>{1, 3});
  CHECK(r.stalled[0].waited == seconds(11));
  CHECK_FALSE(r.shutdown);

  const std::string text = format_stall_warning(r.stalled, 10);
  CHECK(text.find("One or more tensors were submitted to be reduced") == 0);
  CHECK(text.find("more than 10 seconds") != std::string::npos);
  CHECK(text.find("\n[missing ranks: 1, 3] tensor: grad/layer2") != std::string::npos);
  CHECK(text.find("grad/late") == std::string::npos);
}

TEST_CASE("stall inspector: one line per tensor, sorted by name") {
  FakeClock clock;
  StallInspector inspector(3, StallConfig{1, 0}, clock);
  inspector.record_ready("b", 1);
  inspector.record_ready("a", 0);
  inspector.record_ready("a", 2);
  clock.advance(seconds(2));
  const StallReport r = inspector.check();
  CHECK(names(r) == std::vector<std::string>{"a", "b"});
  const std::string text = format_stall_warning(r.stalled, 1);
  CHECK(text.find("\n[missing ranks: 1] tensor: a\n[missing ranks: 0, 2] tensor: b") !=
        std::string::npos);
  CHECK(format_stall_warning({}, 1).empty());
}

TEST_CASE("stall inspector: a stalled tensor is reported once per warning period") {
  FakeClock clock;
  StallInspector inspector(2, StallConfig{60, 0}, clock);
  inspector.record_ready("t", 0);
  clock.advance(seconds(61));
  CHECK(inspector.check().stalled.size() == 1);
  for (int i = 0; i < 59; ++i) {  // the background loop checks every cycle
    clock.advance(seconds(1));
    CHECK(inspector.check().stalled.empty());
  }
  clock.advance(seconds(1));  // 60 s after the last warning
  CHECK(inspector.check().stalled.size() == 1);
  CHECK(inspector.check().stalled.empty());
}

TEST_CASE("stall inspector: done tensors are forgotten") {
  FakeClock clock;
  StallInspector inspector(2, StallConfig{60, 0}, clock);
  inspector.record_ready("t", 0);
  inspector.record_ready("u", 1);
  CHECK(inspector.pending() == 2);
  inspector.record_done("t");
  inspector.record_done("never-seen");  // harmless
  CHECK(inspector.pending() == 1);
  clock.advance(seconds(100));
  CHECK(names(inspector.check()) == std::vector<std::string>{"u"});

  SUBCASE("a name submitted again starts a new wait") {
    inspector.record_ready("t", 1);
    clock.advance(seconds(30));
    CHECK(inspector.check().stalled.empty());
  }
}

TEST_CASE("stall inspector: a tensor every rank submitted is not a stall") {
  FakeClock clock;
  StallInspector inspector(2, StallConfig{1, 2}, clock);
  inspector.record_ready("t", 0);
  inspector.record_ready("t", 1);
  clock.advance(seconds(10));
  const StallReport r = inspector.check();
  CHECK(r.stalled.empty());
  CHECK_FALSE(r.shutdown);
}

TEST_CASE("stall inspector: the shutdown flag rises after the shutdown threshold") {
  FakeClock clock;
  StallInspector inspector(2, StallConfig{60, 120}, clock);
  inspector.record_ready("t", 0);
  clock.advance(seconds(100));
  StallReport r = inspector.check();
  CHECK(r.stalled.size() == 1);
  CHECK_FALSE(r.shutdown);
  clock.advance(seconds(21));
  r = inspector.check();
  CHECK(r.stalled.empty());  // already warned within this period
  CHECK(r.shutdown);         // but the shutdown is reported every time

  SUBCASE("shutdown 0 means never") {
    StallInspector off(2, StallConfig{60, 0}, clock);
    off.record_ready("t", 1);
    clock.advance(seconds(100000));
    CHECK_FALSE(off.check().shutdown);
  }
}

TEST_CASE("stall inspector: check takes an explicit time too") {
  FakeClock clock;
  StallInspector inspector(2, StallConfig{60, 0}, clock);
  inspector.record_ready("t", 1);
  CHECK(inspector.check(clock.now() + seconds(61)).stalled.size() == 1);
  CHECK(inspector.check().stalled.empty());  // the clock itself has not moved
}

TEST_CASE("stall inspector: bad thresholds are ConfigErrors and a bad rank is a bug") {
  FakeClock clock;
  CHECK_THROWS_AS(StallInspector(2, StallConfig{0, 0}, clock), hvd::ConfigError);
  CHECK_THROWS_AS(StallInspector(2, StallConfig{60, -1}, clock), hvd::ConfigError);
  CHECK_THROWS_AS(StallInspector(2, StallConfig{60, 30}, clock), hvd::ConfigError);
  CHECK_NOTHROW(StallInspector(2, StallConfig{60, 60}, clock));
  StallInspector inspector(2, StallConfig{}, clock);
  CHECK_THROWS_AS(inspector.record_ready("t", 2), hvd::InternalError);
  CHECK_THROWS_AS(inspector.record_ready("t", -1), hvd::InternalError);
}

namespace {
// A clock that counts its reads.
class CountingClock final : public hvd::Clock {
 public:
  TimePoint now() const override {
    ++reads;
    return TimePoint{} + seconds(100);
  }
  mutable int reads = 0;
};
}  // namespace

TEST_CASE("stall inspector: a check with nothing pending reads no clock, a given time is used") {
  CountingClock clock;
  StallConfig config;
  config.warning_seconds = 10;
  StallInspector inspector(2, config, clock);
  CHECK(inspector.check().stalled.empty());
  CHECK(clock.reads == 0);  // every cycle checks: in steady state nothing is pending
  // A negotiation reads the time once for all its tensors.
  const hvd::Clock::TimePoint at = hvd::Clock::TimePoint{} + seconds(80);
  inspector.record_ready("a", 0, at);
  inspector.record_ready("b", 0, at);
  CHECK(clock.reads == 0);
  // At 100 s, both have waited 20 s: past the warning time, counted from the given time.
  CHECK(names(inspector.check()) == std::vector<std::string>{"a", "b"});
  CHECK(clock.reads == 1);
  inspector.record_done("a");
  inspector.record_done("b");
  CHECK(inspector.check().stalled.empty());
  CHECK(clock.reads == 1);
}

namespace {

// `steps` steps of one tensor that every rank submits, `period` apart.
void steady_steps(StallInspector& inspector, FakeClock& clock, int ranks, int steps,
                  std::chrono::milliseconds period) {
  for (int s = 0; s < steps; ++s) {
    for (int r = 0; r < ranks; ++r) inspector.record_ready("grad", r);
    inspector.record_done("grad");
    clock.advance(period);
  }
}

}  // namespace

TEST_CASE("stall inspector: at a known pace a missing rank is a stall after the floor, not a minute") {
  FakeClock clock;
  StallInspector inspector(4, StallConfig{}, clock);
  CHECK(inspector.threshold_seconds() == 60.0);  // no pace yet: Horovod's fixed time
  steady_steps(inspector, clock, 4, 5, std::chrono::milliseconds(100));
  CHECK(inspector.step_period_seconds() == doctest::Approx(0.1));
  CHECK(inspector.threshold_seconds() == 5.0);  // 20 periods is 2 s: the floor holds
  for (int r : {0, 2, 3}) inspector.record_ready("grad", r);  // rank 1 stopped
  clock.advance(std::chrono::milliseconds(4900));
  CHECK(inspector.check().stalled.empty());
  clock.advance(std::chrono::milliseconds(200));
  const StallReport report = inspector.check();
  REQUIRE(report.stalled.size() == 1);
  CHECK(report.stalled[0].missing_ranks == std::vector<int>{1});
  CHECK(report.threshold_seconds == 5.0);
}

TEST_CASE("stall inspector: a step ten times slower than the pace is not a stall") {
  FakeClock clock;
  StallInspector inspector(2, StallConfig{}, clock);
  steady_steps(inspector, clock, 2, 5, std::chrono::milliseconds(1000));
  CHECK(inspector.threshold_seconds() == 20.0);
  inspector.record_ready("grad", 0);
  clock.advance(seconds(10));  // rank 1 is ten steps' time late
  CHECK(inspector.check().stalled.empty());
  clock.advance(seconds(11));
  CHECK(names(inspector.check()) == std::vector<std::string>{"grad"});
  SUBCASE("period_multiple 0 keeps only the fixed time") {
    StallConfig fixed;
    fixed.period_multiple = 0;
    StallInspector plain(2, fixed, clock);
    steady_steps(plain, clock, 2, 5, std::chrono::milliseconds(1000));
    CHECK(plain.threshold_seconds() == 60.0);
  }
}
