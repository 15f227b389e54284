// SPDX-License-Identifier: Apache-2.0
#include "exec/timeline_finish.h"

#include <iostream>

#include "core/timeline_merge.h"
#include "hvd/error.h"

namespace hvd::launcher::exec {

void finish_timeline(const config::Tunables& tunables, int ranks) {
  const std::string& base = tunables.timeline_filename;
  if (base.empty()) return;
  std::vector<std::string> files;
  for (int rank = 0; rank < ranks; ++rank) files.push_back(core::timeline_rank_path(base, rank));
  try {
    const core::TimelineMergeResult r = core::merge_timelines(files, base);
    for (const std::string& problem : r.problems)
      std::cerr << "hvdrun: timeline: " << problem << "\n";
    std::cerr << "hvdrun: timeline of " << r.merged.size() << " rank(s) written to " << base
              << std::endl;
  } catch (const std::exception& e) {
    // The run itself is over and its exit code stands: a timeline we could not merge (a bad
    // rank file, a JSON error, bad_alloc on a huge trace, an InternalError) is a warning, never
    // a replacement of the job's exit code by hvdrun's 70.
    std::cerr << "hvdrun: warning: timeline not merged: " << e.what() << std::endl;
  }
}

}  // namespace hvd::launcher::exec
