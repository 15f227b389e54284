// SPDX-License-Identifier: Apache-2.0
#include "core/timeline_file.h"

#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "hvd/error.h"
#include "timeline_test_util.h"

using hvd::core::TimelineFile;
using hvd::test::read_json;
using hvd::test::read_text;
using hvd::test::TempDir;

namespace {

// A JSON object of exactly `bytes` bytes: {"i":N,"p":"xxxx"}.
std::string element(int i, size_t bytes) {
  std::string e = "{\"i\":" + std::to_string(i) + ",\"p\":\"";
  const size_t tail = 2;  // "}
  e.append(bytes > e.size() + tail ? bytes - e.size() - tail : 0, 'x');
  return e + "\"}";
}

}  // namespace

TEST_CASE("timeline file: a new file is an empty JSON array") {
  TempDir dir;
  TimelineFile f(dir.file("t.json"));
  CHECK(read_json(f.path()) == nlohmann::json::array());
}

TEST_CASE("timeline file: valid JSON after every commit across many page boundaries") {
  // A mapping of 2 pages is remapped at nearly every boundary, 3 pages at every other one, and
  // the default window is not left at all: each way of crossing writes the same file.
  for (size_t window_pages : {size_t{2}, size_t{3}, TimelineFile::kDefaultWindowPages}) {
    CAPTURE(window_pages);
    TempDir dir;
    TimelineFile f(dir.file("t.json"), window_pages);
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    const size_t sizes[] = {20, 333, 1000, page / 2, f.max_element_bytes(), 7, page - 100};
    int n = 0;
    for (int round = 0; round < 30; ++round) {
      for (size_t s : sizes) {
        f.append(element(n++, s));
        if (n % 3 == 0) {
          f.commit();
          const nlohmann::json doc = read_json(f.path());
          REQUIRE(doc.size() == static_cast<size_t>(n));
          CHECK(doc.back()["i"] == n - 1);
        }
      }
    }
    f.close();
    const std::string text = read_text(f.path());
    CHECK(text.size() > 20 * page);
    CHECK(text.substr(text.size() - 2) == "]\n");
    const nlohmann::json doc = read_json(f.path());
    REQUIRE(doc.size() == static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) CHECK(doc[static_cast<size_t>(i)]["i"] == i);
  }
}

TEST_CASE("timeline file: an element larger than a page is a bug, not a broken file") {
  TempDir dir;
  TimelineFile f(dir.file("t.json"));
  CHECK_THROWS_AS(f.append(element(0, f.max_element_bytes() + 1)), hvd::InternalError);
  f.append(element(1, 10));
  f.close();
  CHECK(read_json(f.path()).size() == 1);
}

TEST_CASE("timeline file: a folder that does not exist is a ConfigError") {
  TempDir dir;
  CHECK_THROWS_AS(TimelineFile(dir.file("no/such/dir/t.json")), hvd::ConfigError);
}

TEST_CASE("timeline file: a symlink planted at the old temporary name is not followed") {
  TempDir dir;
  const std::string path = dir.file("t.json");
  const std::string victim = dir.file("victim");
  { std::ofstream(victim) << "precious\n"; }
  // The old code opened path + ".tmp" + pid with O_TRUNC, through any symlink there.
  std::filesystem::create_symlink(victim, path + ".tmp" + std::to_string(::getpid()));
  TimelineFile f(path);
  f.append(element(1, 40));
  f.close();
  CHECK(read_text(victim) == "precious\n");
  CHECK(read_json(path).size() == 1);
  CHECK_FALSE(std::filesystem::is_symlink(path));
}
