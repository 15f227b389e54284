// SPDX-License-Identifier: Apache-2.0
#include "timeline_decode.h"

#include <doctest/doctest.h>

#include <chrono>
#include <string>
#include <vector>

#include "common/clock.h"
#include "hvd/error.h"
#include "timeline/timeline.h"
#include "timeline_chrome.h"
#include "timeline_test_util.h"

namespace core = hvd::core;
using hvd::test::read_text;
using hvd::test::TempDir;

namespace {

// A small but complete rank file: names, a meta event, a group and its phases, marks.
std::string sample_file(const TempDir& dir) {
  hvd::FakeClock clock;
  core::TimelineOptions o;
  o.filename = dir.file("tl.json");
  o.clock = &clock;
  o.epoch = clock.now();
  o.flush_interval = std::chrono::hours(1);
  core::TimelineWriter tl(o);
  const std::vector<std::string> names = {"a", "bb", "ccc"};
  for (const std::string& n : names) {
    tl.begin(n, core::timeline_phase::kNegotiate,
             core::TimelineTensorMeta::of_shape(hvd::DataType::kFloat32, {2, 3}));
  }
  const core::TimelineGroup g = tl.group(names);
  tl.end(g, core::timeline_phase::kNegotiate);
  tl.begin(g, core::timeline_phase::kMemcpyInFusionBuffer);
  tl.end(g, core::timeline_phase::kMemcpyInFusionBuffer);
  tl.mark(core::kFatalMark);
  tl.close();
  return read_text(tl.path());
}

// Decodes and formats `bytes` as the merge does; an hvd::Error (a refused header) is fine.
size_t events_of(const std::string& bytes) {
  try {
    const core::DecodedTimeline t = core::decode_timeline(bytes);
    return core::write_chrome_events(t, 0, [](std::string_view) {}).written;
  } catch (const hvd::InternalError&) {
    throw;
  } catch (const hvd::Error&) {
    return 0;
  }
}

}  // namespace

TEST_CASE("timeline decode: a complete file decodes whole") {
  TempDir dir;
  const core::DecodedTimeline t = core::decode_timeline(sample_file(dir));
  CHECK(t.end == core::DecodedTimeline::End::kComplete);
  CHECK(t.tensors.size() == 3);
  CHECK(t.groups.size() == 1);
  CHECK(t.events.size() == 3 + 3 + 1);
  REQUIRE(t.metas.size() == 3);
  CHECK(t.metas[0].dims == std::vector<int64_t>{2, 3});
}

TEST_CASE("timeline decode: every prefix of a file keeps its complete records") {
  TempDir dir;
  const std::string full = sample_file(dir);
  size_t previous = 0;
  for (size_t n = 0; n <= full.size(); ++n) {
    CAPTURE(n);
    const size_t written = events_of(full.substr(0, n));
    CHECK(written >= previous);  // a longer prefix never loses an event
    previous = written;
    if (n >= 16 && n < full.size()) {
      const core::DecodedTimeline t = core::decode_timeline(full.substr(0, n));
      CHECK((t.end == core::DecodedTimeline::End::kComplete || !t.problem.empty()));
    }
  }
  CHECK(events_of(full) == previous);
}

TEST_CASE("timeline decode: any damaged byte gives an error or a shorter trace, never a crash") {
  TempDir dir;
  const std::string full = sample_file(dir);
  for (size_t i = 0; i < full.size(); ++i) {
    for (const unsigned char value : {0x00, 0x01, 0x7f, 0xa5, 0xff}) {
      std::string bytes = full;
      bytes[i] = static_cast<char>(value);
      CAPTURE(i);
      CHECK_NOTHROW(events_of(bytes));
    }
  }
}

TEST_CASE("timeline decode: a file that is not a timeline is a ConfigError") {
  CHECK_THROWS_AS(core::decode_timeline(""), hvd::ConfigError);
  CHECK_THROWS_AS(core::decode_timeline("[{\"name\":\"x\"}]"), hvd::ConfigError);
}
