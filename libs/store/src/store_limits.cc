// SPDX-License-Identifier: Apache-2.0
#include "store/store_limits.h"

#include <sys/resource.h>

#include <algorithm>

namespace hvd::store {

StoreLimits StoreLimits::for_ranks(int ranks) {
  // Descriptors the rest of hvdrun may need: its own files, pipes to children, a margin.
  constexpr size_t kReserve = 64;
  StoreLimits limits;
  const size_t n = static_cast<size_t>(std::max(ranks, 1));
  limits.max_connections = 2 * n + 256;
  limits.max_unauthenticated = n + 128;
  rlimit nofile{};
  if (getrlimit(RLIMIT_NOFILE, &nofile) == 0 && nofile.rlim_cur != RLIM_INFINITY) {
    const size_t usable = nofile.rlim_cur > kReserve * 2 ? nofile.rlim_cur - kReserve : 64;
    limits.max_connections = std::min(limits.max_connections, usable);
  }
  limits.max_unauthenticated = std::min(limits.max_unauthenticated, limits.max_connections);
  return limits;
}

}  // namespace hvd::store
