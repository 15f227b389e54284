// SPDX-License-Identifier: Apache-2.0
#pragma once
// The launch plan as JSON, for --dry-run, in every mode. The common keys: mode, size (local and
// mpirun), settings and settings_sources. Then each mode says what it starts:
//  - local: host, command, program, rendezvous, binding, output_dir, and every rank's
//    binding and variables;
//  - slurm: profile, job, step, the srun line (srun, srun_line) and what hvdrun adds to its
//    environment (step_env), and every rank's variables as exec-rank will set them;
//  - mpirun: the mpirun line (mpirun, mpirun_line) and the variables it exports (env).

#include <nlohmann/json.hpp>

#include "plan/launch_plan.h"

namespace hvd::launcher::plan {

nlohmann::json to_json(const LaunchPlan& plan);

}  // namespace hvd::launcher::plan
