// SPDX-License-Identifier: Apache-2.0
#pragma once
// Helpers shared by the timeline tests: a private temporary folder and trace readers.

#include <doctest/doctest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "timeline_merge/timeline_merge.h"

namespace hvd::test {

/// A fresh folder under the system's temporary directory, removed with its contents.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "hvd-timeline-XXXXXX").string();
    REQUIRE(mkdtemp(tmpl.data()) != nullptr);
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

/// The file parsed strictly; fails the test when it is not valid JSON.
inline nlohmann::json read_json(const std::string& path) {
  const std::string text = read_text(path);
  const nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
  INFO("file: " << path << " (" << text.size()
                << " bytes), tail: " << text.substr(text.size() > 200 ? text.size() - 200 : 0));
  REQUIRE_FALSE(doc.is_discarded());
  return doc;
}

/// Rank `rank`'s timeline file as the Chrome trace the merge makes of it (pid `rank`).
inline nlohmann::json read_rank_trace(const std::string& path, int rank) {
  std::vector<std::string> files(static_cast<size_t>(rank) + 1, path + ".absent");
  files.back() = path;
  const std::string out = path + ".merged.json";
  const hvd::core::TimelineMergeResult r = hvd::core::merge_timelines(files, out);
  REQUIRE(r.merged == std::vector<int>{rank});
  return read_json(out);
}

/// Events of `trace` with the given "ph" (and "name", when not empty).
inline std::vector<nlohmann::json> events(const nlohmann::json& trace, const std::string& ph,
                                          const std::string& name = "") {
  std::vector<nlohmann::json> out;
  for (const auto& ev : trace) {
    if (ev.value("ph", "") == ph && (name.empty() || ev.value("name", "") == name)) {
      out.push_back(ev);
    }
  }
  return out;
}

}  // namespace hvd::test
