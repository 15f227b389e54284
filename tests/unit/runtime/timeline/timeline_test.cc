// SPDX-License-Identifier: Apache-2.0
#include "timeline/timeline.h"

#include <doctest/doctest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "common/clock.h"
#include "hvd/error.h"
#include "timeline_merge/timeline_merge.h"
#include "timeline_test_util.h"

namespace core = hvd::core;
namespace phase = hvd::core::timeline_phase;
using hvd::FakeClock;
using hvd::test::events;
using hvd::test::read_rank_trace;
using hvd::test::TempDir;
using nlohmann::json;
using std::chrono::microseconds;
using std::chrono::milliseconds;

namespace {

core::TimelineOptions options(const TempDir& dir, int rank, const FakeClock& clock) {
  core::TimelineOptions o;
  o.filename = dir.file("timeline.json");
  o.rank = rank;
  o.clock = &clock;
  o.epoch = clock.now();
  return o;
}

// tid of each tensor, from the thread_name metadata.
std::map<std::string, int> tids(const json& trace) {
  std::map<std::string, int> out;
  for (const json& ev : events(trace, "M", "thread_name")) {
    out[ev["args"]["name"].get<std::string>()] = ev["tid"].get<int>();
  }
  return out;
}

}  // namespace

TEST_CASE("timeline: events carry pid rank, a track per tensor, phase names and metadata") {
  TempDir dir;
  FakeClock clock;
  core::TimelineWriter tl(options(dir, 3, clock));
  CHECK(tl.path() == dir.file("timeline.rank3.bin"));
  const std::string nccl = core::backend_op_phase("nccl", "allreduce");
  CHECK(nccl == "NCCL_ALLREDUCE");

  clock.advance(microseconds(1500));
  tl.begin("grad/w1", phase::kNegotiate,
           core::TimelineTensorMeta::of_shape(hvd::DataType::kFloat16, {4, 256}));
  tl.begin("grad/b1", phase::kNegotiate,
           core::TimelineTensorMeta::of_size(hvd::DataType::kInt64, 9));
  clock.advance(microseconds(250));
  tl.end("grad/w1", phase::kNegotiate);
  tl.end("grad/b1", phase::kNegotiate);
  for (std::string_view p : {phase::kQueue, phase::kMemcpyInFusionBuffer, std::string_view(nccl),
                             phase::kMemcpyOutFusionBuffer}) {
    tl.begin("grad/w1", p);
    clock.advance(microseconds(1));
    tl.end("grad/w1", p);
  }
  tl.close();

  const json trace = read_rank_trace(tl.path(), 3);
  REQUIRE(trace.is_array());
  const auto pname = events(trace, "M", "process_name");
  REQUIRE(pname.size() == 1);
  CHECK(pname[0]["args"]["name"] == "rank 3");
  const auto t = tids(trace);
  REQUIRE(t.count("grad/w1") == 1);
  REQUIRE(t.count("grad/b1") == 1);
  CHECK(t.at("marks") == 0);
  CHECK(t.at("grad/w1") != t.at("grad/b1"));

  std::vector<std::string> w1_phases;
  for (const json& ev : trace) {
    CHECK(ev["pid"] == 3);
    if (ev["ph"] == "B" && ev["tid"] == t.at("grad/w1")) w1_phases.push_back(ev["name"]);
  }
  CHECK(w1_phases == std::vector<std::string>{"NEGOTIATE", "QUEUE", "MEMCPY_IN_FUSION_BUFFER",
                                              "NCCL_ALLREDUCE", "MEMCPY_OUT_FUSION_BUFFER"});
  const auto begins = events(trace, "B", "NEGOTIATE");
  REQUIRE(begins.size() == 2);
  CHECK(begins[0]["ts"].get<double>() == doctest::Approx(1500.0));
  CHECK(begins[0]["args"] == json{{"dtype", "float16"}, {"size", 1024}, {"shape", {4, 256}}});
  CHECK(begins[1]["args"] == json{{"dtype", "int64"}, {"size", 9}});
  const auto ends = events(trace, "E", "NEGOTIATE");
  REQUIRE(ends.size() == 2);
  CHECK(ends[0]["ts"].get<double>() == doctest::Approx(1750.0));
  CHECK(events(trace, "B").size() == events(trace, "E").size());
}

TEST_CASE("timeline: CYCLE_START only when mark_cycles is on, FATAL always") {
  TempDir dir;
  FakeClock clock;
  for (const bool on : {false, true}) {
    core::TimelineOptions o = options(dir, 0, clock);
    o.mark_cycles = on;
    core::TimelineWriter tl(o);
    tl.mark_cycle_start();
    tl.mark_cycle_start();
    tl.mark(core::kFatalMark);
    tl.close();
    const json trace = read_rank_trace(tl.path(), 0);
    CHECK(events(trace, "i", "CYCLE_START").size() == (on ? 2u : 0u));
    const auto fatal = events(trace, "i", "FATAL");
    REQUIRE(fatal.size() == 1);
    CHECK(fatal[0]["tid"] == 0);
    CHECK(fatal[0]["s"] == "p");
  }
}

TEST_CASE("timeline: the file merges while open, after flush and after close") {
  TempDir dir;
  FakeClock clock;
  core::TimelineWriter tl(options(dir, 1, clock));
  CHECK(read_rank_trace(tl.path(), 1).size() == 3);  // process name, sort index, marks track
  tl.begin("x", phase::kQueue);
  tl.flush();
  CHECK(events(read_rank_trace(tl.path(), 1), "B").size() == 1);
  tl.end("x", phase::kQueue);
  tl.close();
  tl.close();                    // idempotent
  tl.begin("x", phase::kQueue);  // ignored after close
  CHECK(events(read_rank_trace(tl.path(), 1), "E").size() == 1);
  CHECK(events(read_rank_trace(tl.path(), 1), "B").size() == 1);
}

TEST_CASE("timeline: a group's phases land on every one of its tensors' tracks") {
  TempDir dir;
  FakeClock clock;
  core::TimelineWriter tl(options(dir, 0, clock));
  std::vector<std::string> names;
  for (int i = 0; i < 600; ++i) names.push_back("g" + std::to_string(i));  // several chunks
  for (const std::string& n : names) tl.begin(n, phase::kNegotiate);
  clock.advance(microseconds(5));
  const core::TimelineGroup group = tl.group(names);
  REQUIRE(group.valid());
  tl.end(group, phase::kNegotiate);
  for (std::string_view p : {phase::kMemcpyInFusionBuffer, phase::kMemcpyOutFusionBuffer}) {
    tl.begin(group, p);
    clock.advance(microseconds(1));
    tl.end(group, p);
  }
  tl.end(core::TimelineGroup{}, phase::kQueue);  // no group: nothing recorded
  tl.close();
  const json trace = read_rank_trace(tl.path(), 0);
  const auto t = tids(trace);
  CHECK(t.size() == names.size() + 1);               // and "marks"
  std::map<int, std::vector<std::string>> by_track;  // tid -> "B:NAME" / "E:NAME" in order
  for (const json& ev : trace) {
    if (ev["ph"] == "B" || ev["ph"] == "E") {
      by_track[ev["tid"].get<int>()].push_back(ev["ph"].get<std::string>() + ":" +
                                               ev["name"].get<std::string>());
    }
  }
  const std::vector<std::string> expected = {"B:NEGOTIATE",
                                             "E:NEGOTIATE",
                                             "B:MEMCPY_IN_FUSION_BUFFER",
                                             "E:MEMCPY_IN_FUSION_BUFFER",
                                             "B:MEMCPY_OUT_FUSION_BUFFER",
                                             "E:MEMCPY_OUT_FUSION_BUFFER"};
  for (const std::string& n : names) {
    INFO(n);
    CHECK(by_track[t.at(n)] == expected);
  }
  CHECK(events(trace, "E", "QUEUE").empty());
}

TEST_CASE("timeline: odd tensor names stay valid JSON") {
  TempDir dir;
  FakeClock clock;
  core::TimelineWriter tl(options(dir, 0, clock));
  const std::string quoted = "a\"b\\c\nd\x01";
  const std::string bad_utf8 = "bad\xff\xfe";
  const std::string long_name(5000, 'n');
  for (const std::string& n : {quoted, bad_utf8, long_name}) tl.begin(n, phase::kQueue);
  tl.close();
  const auto t = tids(read_rank_trace(tl.path(), 0));
  CHECK(t.count(quoted) == 1);
  CHECK(t.count(std::string(256, 'n') + "...") == 1);  // long names are cut
  CHECK(t.size() == 4);
}

TEST_CASE("timeline: a full queue drops events and the trace says how many") {
  TempDir dir;
  FakeClock clock;
  core::TimelineOptions o = options(dir, 0, clock);
  o.queue_capacity = 2;
  core::TimelineWriter tl(o);
  constexpr int kEvents = 50000;
  for (int i = 0; i < kEvents; ++i) tl.mark("m");
  tl.close();
  const json trace = read_rank_trace(tl.path(), 0);
  const uint64_t written = events(trace, "i", "m").size();
  CHECK(written + tl.dropped() == kEvents);
  if (tl.dropped() > 0) {
    const auto dropped = events(trace, "i", "EVENTS_DROPPED");
    REQUIRE_FALSE(dropped.empty());
    CHECK(dropped.back()["args"]["count"] == tl.dropped());
  }
}

TEST_CASE("timeline: threads record at once, each into its own ring, and nothing is lost") {
  TempDir dir;
  FakeClock clock;
  core::TimelineOptions o = options(dir, 0, clock);
  o.flush_interval = milliseconds(1);
  o.queue_capacity = size_t{1} << 16;  // room for all: a starved writer must not drop any
  core::TimelineWriter tl(o);
  constexpr int kThreads = 4;
  constexpr int kPerThread = 20000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&tl, t] {
      const std::vector<std::string> names = {"t" + std::to_string(t) + "/a",
                                              "t" + std::to_string(t) + "/b"};
      for (int i = 0; i < kPerThread; ++i) {
        const core::TimelineGroup g = tl.group(names);
        tl.begin(g, phase::kQueue);
        tl.end(g, phase::kQueue);
      }
    });
  }
  for (int i = 0; i < 20; ++i) tl.flush();  // the writer drains while they record
  for (std::thread& t : threads) t.join();
  tl.close();
  const json trace = read_rank_trace(tl.path(), 0);
  CHECK(tl.dropped() == 0);
  // Each begin and end lands on both tensors of its group.
  CHECK(events(trace, "B", "QUEUE").size() == size_t{2} * kThreads * kPerThread);
  CHECK(events(trace, "E", "QUEUE").size() == size_t{2} * kThreads * kPerThread);
  CHECK(tids(trace).size() == 2 * kThreads + 1);
}

TEST_CASE("timeline: a rank killed with SIGKILL leaves a file the merge recovers") {
  TempDir dir;
  for (int trial = 0; trial < 12; ++trial) {
    const std::string base = dir.file("killed" + std::to_string(trial) + ".json");
    const std::string path = core::timeline_rank_path(base, trial);
    const pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {  // the "rank": record as fast as it can until killed
      try {
        core::TimelineOptions o;
        o.filename = base;
        o.rank = trial;
        o.flush_interval = milliseconds(1);
        o.epoch = std::chrono::steady_clock::now();
        core::TimelineWriter tl(o);
        const core::TimelineTensorMeta meta =
            core::TimelineTensorMeta::of_shape(hvd::DataType::kFloat32, {128, 3, 3});
        for (uint64_t i = 0;; ++i) {
          const uint64_t layer = i % 97;  // names of many lengths: name records of many sizes
          const std::string name =
              "grad/layer" + std::to_string(layer) + std::string(layer * 2, 'x');
          tl.begin(name, phase::kNegotiate, meta);
          tl.end(name, phase::kNegotiate);
          if (i % 64 == 0) tl.mark_cycle_start();
        }
      } catch (...) {
        _exit(3);
      }
    }
    // Kill at a different file size each trial, so the kill lands in different write states.
    const off_t target = 65536 + trial * 37000;  // past the tensor-name metadata
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    struct stat st {};
    while ((stat(path.c_str(), &st) != 0 || st.st_size < target) &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(microseconds(200));
    }
    std::this_thread::sleep_for(microseconds(137 * trial));
    REQUIRE(kill(child, SIGKILL) == 0);
    int status = 0;
    REQUIRE(waitpid(child, &status, 0) == child);
    REQUIRE(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == SIGKILL);

    INFO("trial " << trial);
    const std::string out = dir.file("merged" + std::to_string(trial) + ".json");
    std::vector<std::string> files(static_cast<size_t>(trial) + 1, dir.file("absent"));
    files.back() = path;
    const core::TimelineMergeResult merged = core::merge_timelines(files, out);
    REQUIRE(merged.merged == std::vector<int>{trial});
    // Every complete record is kept: no event names anything the file lacks.
    for (const std::string& p : merged.problems) CHECK(p.find("lacks") == std::string::npos);
    const json trace = hvd::test::read_json(out);
    REQUIRE(trace.is_array());
    CHECK(events(trace, "M", "process_name").size() == 1);
    CHECK(events(trace, "B", "NEGOTIATE").size() > 10);
    for (const json& ev : trace) REQUIRE(ev.is_object());
  }
}

TEST_CASE("timeline: an empty file name is a ConfigError") {
  core::TimelineOptions o;
  CHECK_THROWS_AS(core::TimelineWriter{o}, hvd::ConfigError);
}
