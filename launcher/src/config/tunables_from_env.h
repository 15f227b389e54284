// SPDX-License-Identifier: Apache-2.0
#pragma once
// The environment layer of the tunables: HOROVOD_* variables a user exported before calling
// hvdrun (as they would for horovodrun, which passes them through unless a flag overrides
// them). Precedence: built-in values < configs/defaults.yaml < environment < --config-file <
// command line, so an exported HOROVOD_CYCLE_TIME is not silently reset by hvdrun's defaults.

#include "config/env_map.h"
#include "config/tunables.h"

namespace hvd::launcher::config {

/// Applies the HOROVOD_* tunables set in `env` on top of `t` (one set to "" counts as unset)
/// (Horovod's names and units: HOROVOD_FUSION_THRESHOLD in bytes, HOROVOD_CYCLE_TIME in ms, times
/// in seconds). Throws ConfigError naming the variable when a value does not parse.
void apply_environment(Tunables& t, const EnvMap& env);

}  // namespace hvd::launcher::config
