// SPDX-License-Identifier: Apache-2.0
#include "exec/fd_limit.h"

#include <sys/resource.h>

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

void restore_fd_limit_in_child() noexcept {
  if (!g_raised) return;
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return;
  limit.rlim_cur = g_original.rlim_cur;
  setrlimit(RLIMIT_NOFILE, &limit);
}

}  // namespace hvd::launcher::exec
