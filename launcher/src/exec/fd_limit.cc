// SPDX-License-Identifier: Apache-2.0
#include "exec/fd_limit.h"

#include <sys/resource.h>

#include "hvd/error.h"

namespace hvd::launcher::exec {
namespace {

// Written once at start, before any thread or child exists; read in forked children.
bool g_raised = false;
rlimit g_original{};

}  // namespace

void raise_fd_limit() noexcept {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur >= limit.rlim_max) return;
  const rlimit original = limit;
  limit.rlim_cur = limit.rlim_max;
  if (setrlimit(RLIMIT_NOFILE, &limit) != 0) return;
  g_original = original;
  g_raised = true;
}

void require_fds_for_ranks(int ranks, int per_rank) {
  // hvdrun's own: standard streams, the store's listener and thread, the guard, the signalfd.
  constexpr rlim_t kReserve = 64;
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return;
  const rlim_t needed = static_cast<rlim_t>(ranks) * static_cast<rlim_t>(per_rank) + kReserve;
  if (needed <= limit.rlim_cur) return;
  throw LaunchError(str_cat("-np ", ranks,
                            ": starting that many ranks on this machine takes about ", needed,
                            " open files in hvdrun, over its limit of ", limit.rlim_cur,
                            " (ulimit -Hn); start fewer ranks, or raise the limit"));
}

void restore_fd_limit_in_child() noexcept {
  if (!g_raised) return;
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return;
  limit.rlim_cur = g_original.rlim_cur;
  setrlimit(RLIMIT_NOFILE, &limit);
}

}  // namespace hvd::launcher::exec
