// SPDX-License-Identifier: Apache-2.0
#pragma once
// Timeline file names and the merge of per-rank traces into one. Depends only on the error
// header and nlohmann_json, so that hvdrun can merge after the ranks end (even killed ones)
// without linking libhvd.

#include <cstddef>
#include <string>
#include <vector>

namespace hvd::core {

/// The file rank `rank` writes for HOROVOD_TIMELINE=`base`: a trailing ".json" is dropped and
/// ".rank<N>.json" added ("/tmp/tl.json", 3 -> "/tmp/tl.rank3.json"), so that `base` itself can
/// be the merged trace.
std::string timeline_rank_path(const std::string& base, int rank);

/// What merge_timelines() found, rank by rank.
struct TimelineMergeResult {
  std::vector<int> merged;     // ranks with at least one event in the output
  std::vector<int> truncated;  // subset of merged: the file was cut short, its valid prefix kept
  std::vector<int> missing;    // no file, unreadable, or nothing valid in it
  std::vector<std::string> problems;  // one human-readable line per truncated or missing rank
  size_t events = 0;                  // events written, metadata included
};

/// Merges Chrome traces (JSON array, or object with "traceEvents") into one JSON-array trace
/// at `out`, written atomically (temp file + rename). rank_files[i] belongs to rank i; every
/// event's pid is set to i, so each rank is one track group named "rank i". A truncated file
/// contributes its complete leading events. Throws ConfigError when `out` cannot be written;
/// missing inputs are reported, not thrown.
TimelineMergeResult merge_timelines(const std::vector<std::string>& rank_files,
                                    const std::string& out);

}  // namespace hvd::core
