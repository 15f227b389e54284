// SPDX-License-Identifier: Apache-2.0
#pragma once
// torchrun's way of giving the job's shape, --nproc-per-node N (and --nnodes M), for
// torch-native scripts and the site guides written for torchrun. On this machine it is -np N;
// inside a Slurm job hvdrun starts N ranks on each of M nodes (slurm::plan_step_per_node).

#include "config/run_options.h"

namespace hvd::launcher::config {

/// `opts` with --nproc-per-node/--nnodes put in hvdrun's terms. Outside Slurm (`in_slurm`
/// false): num_proc = N and both cleared; --nnodes other than 1 is refused (hvdrun starts ranks
/// on this machine only there). In Slurm they are kept for the step's shape. Throws UsageError
/// naming the flags when -np comes with --nproc-per-node, or --nnodes without it.
RunOptions apply_torchrun_shape(RunOptions opts, bool in_slurm);

}  // namespace hvd::launcher::config
