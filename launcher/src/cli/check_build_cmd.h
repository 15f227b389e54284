// SPDX-License-Identifier: Apache-2.0
#pragma once
// `hvdrun --check-build [--json]`.

#include "config/env_map.h"

namespace hvd::launcher::cli {

/// Prints the build report to stdout; returns 0.
int run_check_build(bool json, const EnvMap& env);

}  // namespace hvd::launcher::cli
