// SPDX-License-Identifier: Apache-2.0
#include "slurm/gpu_ids.h"

#include <algorithm>
#include <string>

#include "hvd/error.h"
#include "util/text.h"

namespace hvd::launcher::slurm {
namespace {

// Far above any real GPU index (a node has at most a few dozen), low enough that a typo such as
// "0-4000000000" fails fast instead of allocating gigabytes.
constexpr int kMaxGpuId = 65535;

using util::trim;

}  // namespace

std::vector<int> parse_gpu_ids(std::string_view text) {
  const std::string_view body = trim(text);
  std::vector<int> ids;
  if (body.empty()) return ids;
  std::vector<bool> seen(kMaxGpuId + 1, false);
  util::for_each_item(body, [&](std::string_view piece) {
    const auto [first, last] = util::parse_range(piece, kMaxGpuId);
    if (first < 0) {
      throw SchedulerError(str_cat("GPU list '", text, "': '", piece,
                                   "' is not a GPU index or an ascending range N-M (0..", kMaxGpuId,
                                   ")"));
    }
    for (int id = first; id <= last; ++id) {
      if (seen[static_cast<size_t>(id)]) {
        throw SchedulerError(str_cat("GPU list '", text, "': GPU ", id, " is listed twice"));
      }
      seen[static_cast<size_t>(id)] = true;
      ids.push_back(id);
    }
  });
  return ids;
}

}  // namespace hvd::launcher::slurm
