// SPDX-License-Identifier: Apache-2.0
#include "core/process_set.h"

#include <algorithm>

#include "bootstrap/topology.h"

namespace hvd::core {

bootstrap::WorldInfo set_world(const bootstrap::WorldInfo& all, const std::vector<int>& ranks) {
  bootstrap::WorldInfo w;
  w.hostname = all.hostname;
  w.method = all.method;
  w.size = static_cast<int>(ranks.size());
  const auto it = std::find(ranks.begin(), ranks.end(), all.rank);
  w.rank = it == ranks.end() ? -1 : static_cast<int>(it - ranks.begin());
  if (w.rank < 0) return w;
  if (all.hostnames.size() == static_cast<size_t>(all.size)) {
    for (int r : ranks) w.hostnames.push_back(all.hostnames[static_cast<size_t>(r)]);
    const bootstrap::HostLayout layout = bootstrap::layout_from_hostnames(w.hostnames, w.rank);
    w.local_rank = layout.local_rank;
    w.local_size = layout.local_size;
    w.cross_rank = layout.cross_rank;
    w.cross_size = layout.cross_size;
  } else {
    // Without every rank's host name only a run on one host has a known layout; elsewhere the
    // set counts as one host (these fields are informative: nothing in a set depends on them).
    w.local_rank = w.rank;
    w.local_size = w.size;
  }
  return w;
}

}  // namespace hvd::core
