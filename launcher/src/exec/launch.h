// SPDX-License-Identifier: Apache-2.0
#pragma once
// The one place that carries out a LaunchPlan, in every mode: it blocks the forwarded signals,
// starts the guard, makes the run's secret, starts the rendezvous store when the plan has one,
// starts the ranks (local) or the one srun or mpirun that starts them, routes their output,
// waits for the end and merges the timeline.

#include "config/env_map.h"
#include "plan/launch_plan.h"

namespace hvd::launcher::exec {

/// Runs `plan` with `env` as the environment the ranks (or srun, or mpirun) inherit. Returns
/// hvdrun's exit code; throws hvd::Error for anything that stops the run before it starts.
int launch(plan::LaunchPlan plan, const EnvMap& env);

}  // namespace hvd::launcher::exec
