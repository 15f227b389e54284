// SPDX-License-Identifier: Apache-2.0
#include "core/timeline_merge.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

#include "files/atomic_file.h"
#include "hvd/error.h"
#include "hvd/str_cat.h"

namespace hvd::core {
namespace {

using nlohmann::json;

// Cut points tried when recovering a truncated file; each costs one parse of the prefix.
constexpr int kMaxRecoveryAttempts = 64;

enum class LoadState { kComplete, kTruncated, kMissing };

struct Loaded {
  LoadState state = LoadState::kMissing;
  json events = json::array();
  std::string problem;
};

bool read_file(const std::string& path, std::string& text) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream buf;
  buf << in.rdbuf();
  text = buf.str();
  return !in.bad();
}

// The event array inside a parsed trace, or null when it is not a trace.
json* events_of(json& doc) {
  if (doc.is_array()) return &doc;
  if (doc.is_object() && doc.contains("traceEvents") && doc["traceEvents"].is_array()) {
    return &doc["traceEvents"];
  }
  return nullptr;
}

// A killed writer leaves a prefix of an array: keep the longest prefix that ends after a
// complete element, found by closing the array after each '}' from the end.
bool recover_prefix(const std::string& text, json& events) {
  const size_t start = text.find_first_not_of(" \t\r\n");
  if (start == std::string::npos || text[start] != '[') return false;
  size_t pos = text.size();
  for (int attempt = 0; attempt < kMaxRecoveryAttempts; ++attempt) {
    pos = text.rfind('}', pos == 0 ? 0 : pos - 1);
    if (pos == std::string::npos || pos < start) return false;
    json doc = json::parse(text.substr(0, pos + 1) + "]", nullptr, false);
    if (!doc.is_discarded() && doc.is_array()) {
      events = std::move(doc);
      return true;
    }
  }
  return false;
}

Loaded load_rank_file(const std::string& path, int rank) {
  Loaded r;
  std::string text;
  if (!read_file(path, text)) {
    r.problem = str_cat("rank ", rank, ": ", path, ": ", std::strerror(errno));
    return r;
  }
  json doc = json::parse(text, nullptr, false);
  if (!doc.is_discarded()) {
    if (json* ev = events_of(doc)) {
      r.state = LoadState::kComplete;
      r.events = std::move(*ev);
      return r;
    }
  } else if (recover_prefix(text, r.events)) {
    r.state = LoadState::kTruncated;
    r.problem = str_cat("rank ", rank, ": ", path, ": truncated; kept ", r.events.size(),
                        " complete events");
    return r;
  }
  r.problem = str_cat("rank ", rank, ": ", path, ": not a Chrome trace");
  return r;
}

bool has_string(const json& ev, const char* key, std::string_view value) {
  const auto it = ev.find(key);
  return it != ev.end() && it->is_string() && it->get_ref<const std::string&>() == value;
}

bool is_process_metadata(const json& ev) {
  return has_string(ev, "ph", "M") &&
         (has_string(ev, "name", "process_name") || has_string(ev, "name", "process_sort_index"));
}

// Writes `events` to `out` through hvd::files::AtomicFile: a mkstemp name beside `out` (never
// the predictable OUT.tmpPID, which another user's symlink could aim at a file of ours), fsync,
// rename, directory fsync; readers see the old file or the whole new one.
void write_atomically(const std::vector<json>& events, const std::string& out) {
  constexpr size_t kChunk = 1 << 20;
  files::AtomicFile file(out);
  std::string buf = "[";
  for (size_t i = 0; i < events.size(); ++i) {
    buf += i ? ",\n" : "\n";
    buf += events[i].dump(-1, ' ', false, json::error_handler_t::replace);
    if (buf.size() >= kChunk) {
      file.write(buf);
      buf.clear();
    }
  }
  buf += "\n]\n";
  file.write(buf);
  file.commit();
}

}  // namespace

std::string timeline_rank_path(const std::string& base, int rank) {
  constexpr std::string_view kExt = ".json";
  std::string stem = base;
  if (stem.size() > kExt.size() &&
      stem.compare(stem.size() - kExt.size(), kExt.size(), kExt) == 0) {
    stem.resize(stem.size() - kExt.size());
  }
  return str_cat(stem, ".rank", rank, ".json");
}

TimelineMergeResult merge_timelines(const std::vector<std::string>& rank_files,
                                    const std::string& out) {
  TimelineMergeResult result;
  std::vector<json> merged;
  for (size_t i = 0; i < rank_files.size(); ++i) {
    const int rank = static_cast<int>(i);
    Loaded loaded = load_rank_file(rank_files[i], rank);
    if (!loaded.problem.empty()) result.problems.push_back(loaded.problem);
    if (loaded.state == LoadState::kMissing) {
      result.missing.push_back(rank);
      continue;
    }
    // Our own names for the group, whatever the file said, so groups sort by rank.
    merged.push_back(json{{"name", "process_name"},
                          {"ph", "M"},
                          {"pid", rank},
                          {"args", {{"name", str_cat("rank ", rank)}}}});
    merged.push_back(json{{"name", "process_sort_index"},
                          {"ph", "M"},
                          {"pid", rank},
                          {"args", {{"sort_index", rank}}}});
    for (json& ev : loaded.events) {
      if (!ev.is_object() || is_process_metadata(ev)) continue;
      ev["pid"] = rank;
      merged.push_back(std::move(ev));
    }
    result.merged.push_back(rank);
    if (loaded.state == LoadState::kTruncated) result.truncated.push_back(rank);
  }
  write_atomically(merged, out);
  result.events = merged.size();
  return result;
}

}  // namespace hvd::core
