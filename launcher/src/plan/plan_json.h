// SPDX-License-Identifier: Apache-2.0
#pragma once
// The launch plan as JSON, for --dry-run: one shape in every mode, documented (and checked by
// ctest "dry_run_schema") in docs/dry-run.schema.json. Every mode has mode, host, size,
// command, program, settings, settings_sources, output_dir, a rendezvous (store, master_addr,
// master_port, run_id), a starter (null in local mode; srun's or mpirun's tool, argv, line and
// the variables hvdrun adds to its environment), hvdrun's own binding (null but in local mode)
// and ranks (each with rank, local_rank, host, binding and env; predicted in Slurm mode, none
// under mpirun). Slurm mode adds a `slurm` block: profile, job and step.

#include <nlohmann/json.hpp>

#include "plan/launch_plan.h"

namespace hvd::launcher::plan {

nlohmann::json to_json(const LaunchPlan& plan);

}  // namespace hvd::launcher::plan
