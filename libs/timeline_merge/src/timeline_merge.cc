// SPDX-License-Identifier: Apache-2.0
#include "timeline_merge/timeline_merge.h"

#include <string_view>

#include "files/atomic_file.h"
#include "files/owned_file.h"
#include "hvd/error.h"
#include "hvd/str_cat.h"
#include "timeline_chrome.h"
#include "timeline_decode.h"

namespace hvd::core {
namespace {

// A rank file is read whole; past this it is left out of the trace with a message rather than
// take gigabytes of memory from the node (about 30 million events).
constexpr size_t kMaxRankFileBytes = size_t{1} << 30;

// The merged trace as a JSON array, streamed into an hvd::files::AtomicFile: a mkstemp name
// beside `out` (never the predictable OUT.tmpPID, which another user's symlink could aim at a
// file of ours), fsync, rename, directory fsync; readers see the old file or the whole new one.
class TraceOutput {
 public:
  explicit TraceOutput(const std::string& out) : file_(out) { buf_ = "["; }

  void add(std::string_view element) {
    buf_ += events_ ? ",\n" : "\n";
    buf_ += element;
    ++events_;
    if (buf_.size() >= kChunk) {
      file_.write(buf_);
      buf_.clear();
    }
  }

  size_t commit() {
    buf_ += "\n]\n";
    file_.write(buf_);
    file_.commit();
    return events_;
  }

 private:
  static constexpr size_t kChunk = 1 << 20;
  files::AtomicFile file_;
  std::string buf_;
  size_t events_ = 0;
};

// One rank's file into `output`; what went wrong is added to `result`.
void merge_rank(const std::string& path, int rank, TraceOutput& output,
                TimelineMergeResult& result) {
  DecodedTimeline timeline;
  try {
    // The folder is often shared (/tmp, a project folder): whatever sits at the name is opened
    // without following a symlink or blocking on a FIFO, and read only when it is a regular
    // file of this user of a sane size (files/owned_file.h). Its errors name the path.
    const std::string bytes = files::read_owned_file(path, kMaxRankFileBytes);
    timeline = decode_timeline(bytes);
  } catch (const Error& e) {
    const std::string what = e.what();
    result.missing.push_back(rank);
    result.problems.push_back(what.rfind(path, 0) == 0
                                  ? str_cat("rank ", rank, ": ", what)
                                  : str_cat("rank ", rank, ": ", path, ": ", what));
    return;
  }
  // Our own names for the group, whatever the file said, so groups sort by rank.
  output.add(str_cat(R"({"name":"process_name","ph":"M","pid":)", rank, R"(,"args":{"name":"rank )",
                     rank, R"("}})"));
  output.add(str_cat(R"({"name":"process_sort_index","ph":"M","pid":)", rank,
                     R"(,"args":{"sort_index":)", rank, "}}"));
  const ChromeEventCounts counts =
      write_chrome_events(timeline, rank, [&](std::string_view ev) { output.add(ev); });
  result.merged.push_back(rank);
  if (timeline.end != DecodedTimeline::End::kComplete) {
    result.truncated.push_back(rank);
    result.problems.push_back(str_cat("rank ", rank, ": ", path, ": ", timeline.problem, "; kept ",
                                      timeline.events.size(), " complete events"));
  }
  if (counts.unresolved > 0) {
    result.problems.push_back(str_cat("rank ", rank, ": ", path, ": ", counts.unresolved,
                                      " events name a tensor or phase the file lacks"));
  }
}

}  // namespace

std::string timeline_rank_path(const std::string& base, int rank, const std::string& tag) {
  constexpr std::string_view kExt = ".json";
  std::string stem = base;
  if (stem.size() > kExt.size() &&
      stem.compare(stem.size() - kExt.size(), kExt.size(), kExt) == 0) {
    stem.resize(stem.size() - kExt.size());
  }
  return str_cat(stem, ".rank", rank, tag.empty() ? "" : ".", tag, ".bin");
}

TimelineMergeResult merge_timelines(const std::vector<std::string>& rank_files,
                                    const std::string& out) {
  TimelineMergeResult result;
  TraceOutput output(out);
  for (size_t i = 0; i < rank_files.size(); ++i) {
    merge_rank(rank_files[i], static_cast<int>(i), output, result);
  }
  result.events = output.commit();
  return result;
}

}  // namespace hvd::core
