// SPDX-License-Identifier: Apache-2.0
#pragma once
// From the run options to a LaunchPlan: picks the mode and gathers the facts that the pure
// builders take (the machine's topology and GPUs, free ports, the allocation, the profile).

#include "config/env_map.h"
#include "config/run_options.h"
#include "plan/launch_plan.h"

namespace hvd::launcher::plan {

/// Slurm mode inside an allocation (or with --launcher slurm, which then requires one),
/// mpirun with --mpi, else local; the options resolved once (plan/launch_request.h). Throws hvd::Error for anything that stops the run before it
/// starts (bad options, config or profile; a program that is not found; no mpirun for --mpi).
/// The store's port is a free one picked for --dry-run to show; exec::launch() replaces it with
/// the one its store listens on.
LaunchPlan make_plan(const config::RunOptions& opts, const EnvMap& env);

/// What exec::launch() finds just before it starts anything, and --dry-run never needs: the
/// srun binary and the store's Slurm bind address (route probes). Throws SchedulerError (exit 4)
/// when srun is missing.
void complete_for_launch(LaunchPlan& plan, const EnvMap& env);

}  // namespace hvd::launcher::plan
