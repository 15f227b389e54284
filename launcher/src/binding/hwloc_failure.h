// SPDX-License-Identifier: Apache-2.0
#pragma once
// How the binding folder reports a failed hwloc call: hwloc sets errno, and a failure there is
// this machine's problem or hvdrun's, never the user's input.

#include <cerrno>
#include <cstring>

#include "hvd/error.h"
#include "hvd/str_cat.h"

namespace hvd::launcher::binding {

[[noreturn]] inline void throw_hwloc_failure(const char* what) {
  throw InternalError(str_cat("hwloc: ", what, " failed: ", std::strerror(errno)));
}

}  // namespace hvd::launcher::binding
