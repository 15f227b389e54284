// SPDX-License-Identifier: Apache-2.0
#pragma once
// Timeline file names and the merge of per-rank timelines into one Chrome trace. The ranks
// write raw binary records (timeline_format.h); this is where they become JSON, once, after
// the run. Depends only on the error header, hvd_files and nlohmann_json, so that hvdrun can
// merge after the ranks end (even killed ones) without linking libhvd.

#include <cstddef>
#include <string>
#include <vector>

namespace hvd::core {

/// The file rank `rank` writes for HOROVOD_TIMELINE=`base`: a trailing ".json" is dropped and
/// ".rank<N>.bin" added ("/tmp/tl.json", 3 -> "/tmp/tl.rank3.bin"), so that `base` itself can
/// be the merged trace. With a `tag` (HVD_TIMELINE_TAG) it goes before ".bin"
/// ("/tmp/tl.rank3.<tag>.bin"): the folder is often shared, and a file another user made first
/// at a name known in advance made the rank fail at start.
std::string timeline_rank_path(const std::string& base, int rank, const std::string& tag = "");

/// What merge_timelines() found, rank by rank.
struct TimelineMergeResult {
  std::vector<int> merged;     // ranks whose file had a valid header: their events are in
  std::vector<int> truncated;  // subset of merged: torn or damaged; its complete records kept
  std::vector<int> missing;    // no file, unreadable, or not a timeline file
  std::vector<std::string> problems;  // one human-readable line per problem, "rank N: ..."
  size_t events = 0;                  // events written, metadata included
};

/// Merges per-rank timeline files into one JSON-array Chrome trace at `out` (Perfetto and
/// chrome://tracing open it), written atomically (temp file + rename). rank_files[i] belongs
/// to rank i and becomes the track group "rank i" (pid i). A file cut short or damaged
/// contributes every complete record before the damage. Throws ConfigError when `out` cannot
/// be written; bad inputs are reported, not thrown.
TimelineMergeResult merge_timelines(const std::vector<std::string>& rank_files,
                                    const std::string& out);

}  // namespace hvd::core
