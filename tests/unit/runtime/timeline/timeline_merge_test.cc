// SPDX-License-Identifier: Apache-2.0
#include "timeline_merge/timeline_merge.h"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "common/clock.h"
#include "hvd/error.h"
#include "hvd/str_cat.h"
#include "timeline/timeline.h"
#include "timeline_merge/timeline_format.h"
#include "timeline_test_util.h"

namespace core = hvd::core;
using hvd::test::events;
using hvd::test::read_json;
using hvd::test::read_text;
using hvd::test::TempDir;
using hvd::test::write_text;
using nlohmann::json;

namespace {

// Writes rank `rank`'s trace with `n` tensors the way a rank would.
std::string write_rank(const TempDir& dir, int rank, int n) {
  hvd::FakeClock clock;
  core::TimelineOptions o;
  o.filename = dir.file("tl.json");
  o.rank = rank;
  o.clock = &clock;
  o.epoch = clock.now();
  o.flush_interval = std::chrono::hours(1);  // all written at close: names, then the events
  core::TimelineWriter tl(o);
  for (int i = 0; i < n; ++i) {
    const std::string name = "grad/" + std::to_string(i);
    tl.begin(name, core::timeline_phase::kNegotiate);
    clock.advance(std::chrono::microseconds(10));
    tl.end(name, core::timeline_phase::kNegotiate);
  }
  tl.close();
  return tl.path();
}

}  // namespace

TEST_CASE("timeline merge: rank file names drop a .json suffix") {
  CHECK(core::timeline_rank_path("/tmp/tl.json", 3) == "/tmp/tl.rank3.bin");
  CHECK(core::timeline_rank_path("/tmp/tl", 0) == "/tmp/tl.rank0.bin");
  CHECK(core::timeline_rank_path(".json", 1) == ".json.rank1.bin");
  CHECK(core::timeline_rank_path("/tmp/tl.json", 2, "0a1b") == "/tmp/tl.rank2.0a1b.bin");
}

TEST_CASE("timeline merge: three ranks, one truncated and one missing") {
  TempDir dir;
  const std::string r0 = write_rank(dir, 0, 5);
  const std::string r1 = write_rank(dir, 1, 40);
  const std::string r2 = dir.file("tl.rank2.bin");  // never written: the rank died early
  // Cut rank 1 in the middle of its last record (an end event), as a kill during a write would.
  const std::string full = read_text(r1);
  write_text(r1, full.substr(0, full.size() - 10));

  const std::string out = dir.file("tl.json");
  const core::TimelineMergeResult res = core::merge_timelines({r0, r1, r2}, out);
  CHECK(res.merged == std::vector<int>{0, 1});
  CHECK(res.truncated == std::vector<int>{1});
  CHECK(res.missing == std::vector<int>{2});
  REQUIRE(res.problems.size() == 2);
  CHECK(res.problems[0].find("rank 1") == 0);
  CHECK(res.problems[1].find("rank 2") == 0);

  const json trace = read_json(out);
  REQUIRE(trace.is_array());
  CHECK(res.events == trace.size());
  std::set<std::string> groups;
  for (const json& ev : events(trace, "M", "process_name")) {
    groups.insert(ev["args"]["name"].get<std::string>());
  }
  CHECK(groups == std::set<std::string>{"rank 0", "rank 1"});
  std::map<std::pair<int, std::string>, int> count;  // (pid, ph) -> events
  for (const json& ev : trace) {
    if (ev["name"] == "NEGOTIATE") ++count[{ev["pid"].get<int>(), ev["ph"].get<std::string>()}];
  }
  CHECK(count[{0, "B"}] == 5);
  CHECK(count[{0, "E"}] == 5);
  CHECK(count[{1, "B"}] == 40);  // everything before the cut...
  CHECK(count[{1, "E"}] == 39);  // ...which fell in the last event
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    CHECK(entry.path().string().find(".tmp") == std::string::npos);  // no temp file left
  }
}

TEST_CASE("timeline merge: not a timeline, or another format version, is missing") {
  TempDir dir;
  const std::string garbage = dir.file("g.bin");
  const std::string json_trace = dir.file("o.json");
  const std::string future = dir.file("f.bin");
  const std::string empty = dir.file("e.bin");
  write_text(garbage, "this is not a timeline at all");
  write_text(json_trace, R"({"traceEvents":[{"name":"X","ph":"i","ts":1,"pid":7,"tid":0}]})");
  std::string next_version = read_text(write_rank(dir, 0, 1)).substr(0, 16);
  next_version[12] = static_cast<char>(core::timeline_format::kFormatVersion + 1);
  write_text(future, next_version);
  write_text(empty, "");
  const auto res =
      core::merge_timelines({garbage, json_trace, future, empty}, dir.file("out.json"));
  CHECK(res.missing == std::vector<int>{0, 1, 2, 3});
  REQUIRE(res.problems.size() == 4);
  CHECK(res.problems[0].find("not an hvd timeline file") != std::string::npos);
  CHECK(res.problems[2].find(hvd::str_cat("format version ", core::timeline_format::kFormatVersion + 1)) !=
        std::string::npos);
  CHECK(read_json(dir.file("out.json")).empty());
}

TEST_CASE("timeline merge: a damaged record keeps the records before it") {
  TempDir dir;
  const std::string r0 = write_rank(dir, 0, 30);
  std::string bytes = read_text(r0);
  // Records: header, 30 tensor names and one phase name, then 60 events of 24 bytes each.
  const size_t tenth_event = bytes.size() - 50 * 24;
  bytes[tenth_event + 1] = 0;  // its marker byte
  write_text(r0, bytes);
  const auto res = core::merge_timelines({r0}, dir.file("out.json"));
  CHECK(res.truncated == std::vector<int>{0});
  REQUIRE(res.problems.size() == 1);
  CHECK(res.problems[0].find("not a record at byte " + std::to_string(tenth_event)) !=
        std::string::npos);
  const json trace = read_json(dir.file("out.json"));
  CHECK(events(trace, "B", "NEGOTIATE").size() + events(trace, "E", "NEGOTIATE").size() == 10);
}

TEST_CASE("timeline merge: an unwritable output is a ConfigError") {
  TempDir dir;
  const std::string r0 = write_rank(dir, 0, 1);
  CHECK_THROWS_AS(core::merge_timelines({r0}, dir.file("no/such/dir/out.json")), hvd::ConfigError);
}

// Issue 10: the merge wrote OUT.tmpPID, a name anyone could predict, then renamed it; a symlink
// planted there made hvdrun write the merged trace into the file it pointed at.
TEST_CASE("timeline merge: a symlink planted at a temporary name is not followed") {
  TempDir dir;
  const std::string r0 = write_rank(dir, 0, 1);
  const std::string victim = dir.file("victim.txt");
  write_text(victim, "keep me");
  const std::string out = dir.file("merged.json");
  std::filesystem::create_symlink(victim, out + ".tmp" + std::to_string(getpid()));
  core::merge_timelines({r0}, out);
  CHECK(read_text(victim) == "keep me");
  CHECK(events(read_json(out), "M", "process_name").size() == 1);
}

// Issue 23, finding 3: the merge opened whatever sat at a rank's file name. A FIFO there blocked
// hvdrun in open() for good (SIGINT and SIGTERM pending), and a 3 GB sparse file was read whole.
// Now only a regular file of this user, of a bounded size, is read; the rest are "missing".
TEST_CASE("timeline merge: a FIFO, a symlink, a huge file or another user's file is not read") {
  TempDir dir;
  const std::string good = write_rank(dir, 0, 2);
  const std::string planted = dir.file("planted.rank1.bin");
  std::string expect;
  SUBCASE("a FIFO with no writer") {
    REQUIRE(mkfifo(planted.c_str(), 0666) == 0);
    expect = "a FIFO";
  }
  SUBCASE("a symlink to a real rank file") {
    std::filesystem::create_symlink(good, planted);
    expect = "symlink";
  }
  SUBCASE("a sparse file of 3 GB") {
    const int fd = ::open(planted.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
    REQUIRE(fd >= 0);
    REQUIRE(ftruncate(fd, off_t{3} << 30) == 0);
    ::close(fd);
    expect = "bytes";
  }
  if (geteuid() == 0) {
    SUBCASE("a copy of a real rank file that belongs to another user") {
      std::filesystem::copy_file(good, planted);
      REQUIRE(chown(planted.c_str(), 65534, 65534) == 0);
      expect = "belongs to uid 65534";
    }
  }
  if (expect.empty()) return;
  // A FIFO would block here for good, before the fix: ctest's timeout names the test.
  const core::TimelineMergeResult r = core::merge_timelines({good, planted}, dir.file("m.json"));
  CHECK(r.merged == std::vector<int>{0});
  CHECK(r.missing == std::vector<int>{1});
  REQUIRE(r.problems.size() == 1);
  CHECK(r.problems[0].find("rank 1: " + planted) == 0);
  CHECK(r.problems[0].find(expect) != std::string::npos);
}
