// SPDX-License-Identifier: Apache-2.0
#pragma once
// `hvdrun --check-build [--json]`.

#include "config/env_map.h"

namespace hvd::launcher::cli {

/// Prints the build report to stdout; returns 0. `horovod_layout` (horovodrun, or
/// --horovod-compat): Horovod's exact text instead of hvdrun's (--json wins over it).
int run_check_build(bool json, bool horovod_layout, const EnvMap& env);

}  // namespace hvd::launcher::cli
