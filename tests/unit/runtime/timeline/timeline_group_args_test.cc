// SPDX-License-Identifier: Apache-2.0
// Groups built tensor by tensor (TimelineGroupBuilder), reused across steps, and NEGOTIATE
// begun on a whole group with each tensor's args (kTensorMeta records, written on change).
#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "common/clock.h"
#include "hvd/error.h"
#include "hvd/str_cat.h"
#include "timeline/timeline.h"
#include "timeline_chrome.h"
#include "timeline_decode.h"
#include "timeline_merge/timeline_format.h"
#include "timeline_test_util.h"

namespace core = hvd::core;
namespace fmt = hvd::core::timeline_format;
namespace phase = hvd::core::timeline_phase;
using hvd::DataType;
using hvd::FakeClock;
using hvd::test::events;
using hvd::test::read_rank_trace;
using hvd::test::read_text;
using hvd::test::TempDir;
using nlohmann::json;
using std::chrono::microseconds;

namespace {

core::TimelineOptions options(const TempDir& dir, const FakeClock& clock) {
  core::TimelineOptions o;
  o.filename = dir.file("timeline.json");
  o.clock = &clock;
  o.epoch = clock.now();
  o.flush_interval = std::chrono::hours(1);  // the file grows only at flush()
  return o;
}

struct Tensor {
  std::string name;
  std::vector<int64_t> shape;
};

// One step as the runtime records it: NEGOTIATE on the new requests' group, then its end.
core::TimelineGroup negotiate(core::TimelineWriter& tl, const std::vector<Tensor>& tensors) {
  core::TimelineGroupBuilder g(tl);
  for (const Tensor& t : tensors) g.add(t.name, DataType::kFloat32, t.shape);
  const core::TimelineGroup group = g.finish();
  tl.begin_with_args(group, phase::kNegotiate);
  return group;
}

// The bytes the file grew by while `record` ran (everything is written at flush()).
template <typename F>
size_t growth(core::TimelineWriter& tl, F record) {
  tl.flush();
  const size_t before = std::filesystem::file_size(tl.path());
  record();
  tl.flush();
  return std::filesystem::file_size(tl.path()) - before;
}

// The args of each NEGOTIATE begin on `tensor`'s track, in time order.
std::vector<json> negotiate_args(const json& trace, const std::string& tensor) {
  int tid = -1;
  for (const json& ev : events(trace, "M", "thread_name")) {
    if (ev["args"]["name"] == tensor) tid = ev["tid"].get<int>();
  }
  std::vector<json> out;
  for (const json& ev : events(trace, "B", "NEGOTIATE")) {
    if (ev["tid"] == tid) out.push_back(ev.value("args", json()));
  }
  return out;
}

json shape_args(const std::vector<int64_t>& shape, int64_t size) {
  return json{{"dtype", "float32"}, {"size", size}, {"shape", shape}};
}

constexpr size_t kEventBytes = fmt::kEventWords * fmt::kWordBytes;

}  // namespace

TEST_CASE("timeline group args: a repeated step records its events only, args when they change") {
  TempDir dir;
  FakeClock clock;
  core::TimelineWriter tl(options(dir, clock));
  std::vector<Tensor> step = {{"a", {2, 3}}, {"bb", {4}}, {"ccc", {}}};
  const auto run_step = [&] {
    const core::TimelineGroup g = negotiate(tl, step);
    clock.advance(microseconds(10));
    tl.end(g, phase::kNegotiate);
    clock.advance(microseconds(10));
  };
  const size_t first = growth(tl, run_step);
  // The same tensors again: the same group, no names, no args, just the begin and the end.
  CHECK(growth(tl, run_step) == 2 * kEventBytes);
  CHECK(growth(tl, run_step) == 2 * kEventBytes);
  CHECK(first > 2 * kEventBytes);
  // One tensor's shape changes: its args once more, and (the group is the same) nothing else.
  step[1].shape = {5};
  const size_t meta_bytes =
      fmt::record_words(sizeof(fmt::TensorMetaBody) + sizeof(fmt::MetaBody) + 8) * fmt::kWordBytes;
  CHECK(growth(tl, run_step) == 2 * kEventBytes + meta_bytes);
  CHECK(growth(tl, run_step) == 2 * kEventBytes);
  tl.close();

  const json trace = read_rank_trace(tl.path(), 0);
  CHECK(events(trace, "B", "NEGOTIATE").size() == 5 * 3);
  CHECK(events(trace, "E", "NEGOTIATE").size() == 5 * 3);
  const std::vector<json> a = negotiate_args(trace, "a");
  REQUIRE(a.size() == 5);
  for (const json& args : a) CHECK(args == shape_args({2, 3}, 6));
  const std::vector<json> bb = negotiate_args(trace, "bb");
  REQUIRE(bb.size() == 5);
  CHECK(bb[2] == shape_args({4}, 4));
  CHECK(bb[3] == shape_args({5}, 5));
  CHECK(bb[4] == shape_args({5}, 5));
  const std::vector<json> ccc = negotiate_args(trace, "ccc");
  REQUIRE(ccc.size() == 5);
  CHECK(ccc[0] == json{{"dtype", "float32"}, {"size", 1}, {"shape", json::array()}});
}

TEST_CASE("timeline group args: groups are reused only for the same tensors in the same order") {
  TempDir dir;
  FakeClock clock;
  core::TimelineWriter tl(options(dir, clock));
  const std::vector<std::string> abc = {"a", "b", "c"};
  const core::TimelineGroup g1 = tl.group(abc);
  REQUIRE(g1.valid());
  CHECK(tl.group(abc).id == g1.id);
  const core::TimelineGroup cab = tl.group(std::vector<std::string>{"c", "a", "b"});
  const core::TimelineGroup ab = tl.group(std::vector<std::string>{"a", "b"});
  const core::TimelineGroup abcd = tl.group(std::vector<std::string>{"a", "b", "c", "d"});
  CHECK(cab.id != g1.id);
  CHECK(ab.id != g1.id);
  CHECK(abcd.id != g1.id);
  CHECK(tl.group(abc).id == g1.id);
  // More groups than a thread keeps: an old one comes back as a new group, still right.
  std::vector<std::string> many;
  for (int i = 0; i < 600; ++i) many.push_back(hvd::str_cat("t", i));  // several group chunks
  std::vector<core::TimelineGroup> singles;
  for (int i = 0; i < 6; ++i) singles.push_back(tl.group(std::vector<std::string>{many[i]}));
  const core::TimelineGroup big = tl.group(many);
  CHECK(tl.group(many).id == big.id);
  for (const core::TimelineGroup& g : {g1, cab, ab, abcd, big}) {
    tl.begin(g, "P");
    clock.advance(microseconds(1));
    tl.end(g, "P");
  }
  tl.begin(tl.group(abc), "Q");
  tl.end(tl.group(abc), "Q");
  tl.close();

  const json trace = read_rank_trace(tl.path(), 0);
  std::map<int, int> p_on_track;
  for (const json& ev : events(trace, "B", "P")) ++p_on_track[ev["tid"].get<int>()];
  std::map<std::string, int> tid;
  for (const json& ev : events(trace, "M", "thread_name")) {
    tid[ev["args"]["name"].get<std::string>()] = ev["tid"].get<int>();
  }
  CHECK(p_on_track[tid.at("a")] == 4);
  CHECK(p_on_track[tid.at("c")] == 3);
  CHECK(p_on_track[tid.at("d")] == 1);
  CHECK(p_on_track[tid.at("t0")] == 1);
  CHECK(p_on_track[tid.at("t599")] == 1);
  CHECK(events(trace, "B", "P").size() == 3 + 3 + 2 + 4 + 600);
  CHECK(events(trace, "B", "Q").size() == 3);
  CHECK(events(trace, "E", "Q").size() == 3);
}

TEST_CASE("timeline group args: each thread's events take the args that thread wrote") {
  // Caller-thread cycles: any thread may run a cycle. A tensor whose shape another thread
  // recorded in between keeps, on this thread's events, the shape this thread gave it.
  TempDir dir;
  FakeClock clock;
  core::TimelineWriter tl(options(dir, clock));
  const auto step = [&](const std::vector<int64_t>& shape) {
    const core::TimelineGroup g = negotiate(tl, {{"x", shape}});
    clock.advance(microseconds(1));
    tl.end(g, phase::kNegotiate);
    clock.advance(microseconds(1));
    tl.flush();  // the file in time order, not each thread's records together
  };
  step({2});
  std::thread other([&] { step({3}); });
  other.join();
  step({2});
  tl.close();
  const std::vector<json> x = negotiate_args(read_rank_trace(tl.path(), 0), "x");
  REQUIRE(x.size() == 3);
  CHECK(x[0] == shape_args({2}, 2));
  CHECK(x[1] == shape_args({3}, 3));
  CHECK(x[2] == shape_args({2}, 2));
}

TEST_CASE("timeline group args: nothing is recorded once the timeline is closed") {
  TempDir dir;
  FakeClock clock;
  core::TimelineWriter tl(options(dir, clock));
  tl.close();
  core::TimelineGroupBuilder g(tl);
  g.add("a", DataType::kInt32, {1});
  CHECK_FALSE(g.finish().valid());
  CHECK(tl.dropped() == 0);
}

TEST_CASE("timeline group args: the records decode, torn or damaged, without a crash") {
  TempDir dir;
  FakeClock clock;
  std::string bytes;
  {
    core::TimelineWriter tl(options(dir, clock));
    for (int i = 0; i < 2; ++i) {
      const core::TimelineGroup g = negotiate(tl, {{"a", {2}}, {"b", {1, 2}}});
      tl.end(g, phase::kNegotiate);
    }
    tl.close();
    bytes = read_text(tl.path());
  }
  const core::DecodedTimeline whole = core::decode_timeline(bytes);
  CHECK(whole.end == core::DecodedTimeline::End::kComplete);
  CHECK(whole.metas.size() == 2);
  // The begins arrive one per tensor with their args; the ends stay group events.
  size_t begins = 0;
  for (const core::DecodedEvent& ev : whole.events) {
    if (ev.ph != 'B') continue;
    ++begins;
    CHECK(ev.subject == fmt::Subject::kTensor);
    CHECK(ev.meta >= 0);
  }
  CHECK(begins == 4);
  const auto formatted = [](const std::string& b) -> size_t {
    try {
      return core::write_chrome_events(core::decode_timeline(b), 0, [](std::string_view) {})
          .written;
    } catch (const hvd::InternalError&) {
      throw;
    } catch (const hvd::Error&) {
      return 0;
    }
  };
  size_t previous = 0;
  for (size_t n = 0; n <= bytes.size(); ++n) {
    CAPTURE(n);
    const size_t written = formatted(bytes.substr(0, n));
    CHECK(written >= previous);
    previous = written;
  }
  for (size_t i = fmt::kFileHeaderBytes; i < bytes.size(); ++i) {
    for (const unsigned char value : {0x00, 0x01, 0xa5, 0xff}) {
      std::string damaged = bytes;
      damaged[i] = static_cast<char>(value);
      CAPTURE(i);
      CHECK_NOTHROW(formatted(damaged));
    }
  }
}

TEST_CASE("timeline group args: a version 1 file (no kTensorMeta) still decodes") {
  TempDir dir;
  FakeClock clock;
  core::TimelineWriter tl(options(dir, clock));
  tl.begin("a", phase::kNegotiate, core::TimelineTensorMeta::of_size(DataType::kInt8, 3));
  tl.end("a", phase::kNegotiate);
  tl.close();
  std::string bytes = read_text(tl.path());
  bytes[12] = 1;  // the version word
  const core::DecodedTimeline t = core::decode_timeline(bytes);
  CHECK(t.end == core::DecodedTimeline::End::kComplete);
  CHECK(t.events.size() == 2);
  CHECK(t.metas.size() == 1);
}
