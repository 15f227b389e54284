// SPDX-License-Identifier: Apache-2.0
#include "exec/timeline_finish.h"

#include <filesystem>
#include <iostream>

#include "hvd/error.h"
#include "hvd/str_cat.h"
#include "timeline_merge/timeline_merge.h"

namespace hvd::launcher::exec {

std::string timeline_attempt_path(const std::string& base, int attempt) {
  const std::string suffix = ".json";
  const bool json = base.size() > suffix.size() &&
                    base.compare(base.size() - suffix.size(), suffix.size(), suffix) == 0;
  const std::string stem = json ? base.substr(0, base.size() - suffix.size()) : base;
  return str_cat(stem, ".attempt-", attempt, json ? suffix : "");
}

void require_timeline_folder(const config::Tunables& tunables) {
  const std::string& base = tunables.timeline_filename;
  if (base.empty()) return;
  const std::filesystem::path folder = std::filesystem::path(base).parent_path();
  std::error_code ec;
  if (folder.empty() || std::filesystem::is_directory(folder, ec)) return;
  throw UsageError(str_cat("timeline file ", base, " (--timeline-filename): its folder ",
                           folder.string(),
                           " does not exist; create it first or name a file in another one"));
}

void finish_timeline(const config::Tunables& tunables, int ranks, const std::string& tag,
                     std::optional<int> attempt) {
  const std::string& base = tunables.timeline_filename;
  if (base.empty()) return;
  const std::string out = attempt ? timeline_attempt_path(base, *attempt) : base;
  std::vector<std::string> files;
  for (int rank = 0; rank < ranks; ++rank)
    files.push_back(core::timeline_rank_path(base, rank, tag));
  try {
    const core::TimelineMergeResult r = core::merge_timelines(files, out);
    for (const std::string& problem : r.problems)
      std::cerr << "hvdrun: timeline: " << problem << "\n";
    std::cerr << "hvdrun: timeline of " << r.merged.size() << " rank(s) written to " << out
              << std::endl;
  } catch (const std::exception& e) {
    // The run itself is over and its exit code stands: a timeline we could not merge (a bad
    // rank file, a JSON error, bad_alloc on a huge trace, an InternalError) is a warning, never
    // a replacement of the job's exit code by hvdrun's 70.
    std::cerr << "hvdrun: warning: timeline not merged: " << e.what() << std::endl;
  }
}

}  // namespace hvd::launcher::exec
