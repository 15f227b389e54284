// SPDX-License-Identifier: Apache-2.0
#include "timeline/timeline_file.h"

#include <doctest/doctest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "hvd/error.h"
#include "timeline_decode.h"
#include "timeline_merge/timeline_format.h"
#include "timeline_test_util.h"

using hvd::core::TimelineFile;
using hvd::test::read_text;
using hvd::test::TempDir;
namespace fmt = hvd::core::timeline_format;

namespace {

// A mark event record (name id 0) at `ts`, as bytes.
std::string mark_record(int64_t ts) {
  fmt::RecordHeader h{fmt::RecordKind::kEvent, fmt::kRecordMarker,
                      static_cast<uint16_t>(fmt::kEventWords), 0};
  fmt::EventBody b{ts, 'i', fmt::Subject::kMarks, 0, 0};
  std::string out(sizeof(h) + sizeof(b), '\0');
  std::memcpy(out.data(), &h, sizeof(h));
  std::memcpy(out.data() + sizeof(h), &b, sizeof(b));
  return out;
}

}  // namespace

TEST_CASE("timeline file: a new file is a header with the rank and no records") {
  TempDir dir;
  TimelineFile f(dir.file("t.bin"), 7);
  const std::string bytes = read_text(f.path());
  REQUIRE(bytes.size() == fmt::kFileHeaderBytes);
  const hvd::core::DecodedTimeline t = hvd::core::decode_timeline(bytes);
  CHECK(t.rank == 7);
  CHECK(t.events.empty());
  CHECK(t.end == hvd::core::DecodedTimeline::End::kComplete);
}

TEST_CASE("timeline file: appends land in order and decode back") {
  TempDir dir;
  TimelineFile f(dir.file("t.bin"), 0);
  for (int i = 0; i < 100; ++i) f.append(mark_record(i) + mark_record(1000 + i));
  f.close();
  f.close();  // idempotent
  const hvd::core::DecodedTimeline t = hvd::core::decode_timeline(read_text(f.path()));
  REQUIRE(t.events.size() == 200);
  CHECK(t.events[0].ts_ns == 0);
  CHECK(t.events[1].ts_ns == 1000);
  CHECK(t.events[199].ts_ns == 1099);
}

TEST_CASE("timeline file: a folder that does not exist is a ConfigError") {
  TempDir dir;
  CHECK_THROWS_AS(TimelineFile(dir.file("no/such/dir/t.bin"), 0), hvd::ConfigError);
}

TEST_CASE("timeline file: a symlink planted at the old temporary name is not followed") {
  TempDir dir;
  const std::string path = dir.file("t.bin");
  const std::string victim = dir.file("victim");
  { std::ofstream(victim) << "precious\n"; }
  // An old version opened path + ".tmp" + pid with O_TRUNC, through any symlink there.
  std::filesystem::create_symlink(victim, path + ".tmp" + std::to_string(::getpid()));
  TimelineFile f(path, 0);
  f.append(mark_record(1));
  f.close();
  CHECK(read_text(victim) == "precious\n");
  CHECK(hvd::core::decode_timeline(read_text(path)).events.size() == 1);
  CHECK_FALSE(std::filesystem::is_symlink(path));
}
