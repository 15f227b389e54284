// SPDX-License-Identifier: Apache-2.0
#pragma once
// The step's shape from torchrun's flags: N ranks on each of the job's first M nodes
// (hvdrun --nproc-per-node N --nnodes M inside an allocation), checked against the job.

#include "slurm/allocation.h"
#include "slurm/srun_command.h"

namespace hvd::launcher::slurm {

/// `nodes` x `per_node` ranks; `nodes` 0 means every node of the job. Throws UsageError naming
/// the flag and the job's value when the job has fewer nodes, fewer tasks (SLURM_NTASKS), or
/// fewer tasks on a node (SLURM_TASKS_PER_NODE) than asked for.
StepShape plan_step_per_node(const Allocation& alloc, int nodes, int per_node);

}  // namespace hvd::launcher::slurm
