// SPDX-License-Identifier: Apache-2.0
#include "config/torchrun_shape.h"

#include "hvd/error.h"

namespace hvd::launcher::config {

RunOptions apply_torchrun_shape(RunOptions opts, bool in_slurm) {
  if (opts.nnodes && !opts.nproc_per_node) {
    throw UsageError(str_cat("--nnodes ", *opts.nnodes,
                             " needs --nproc-per-node (the ranks on each node); or give the "
                             "total with -np"));
  }
  if (!opts.nproc_per_node) return opts;
  if (opts.num_proc) {
    throw UsageError(str_cat("-np ", *opts.num_proc, " and --nproc-per-node ", *opts.nproc_per_node,
                             ": give one of them (--nproc-per-node N --nnodes M starts N*M "
                             "ranks)"));
  }
  if (in_slurm) return opts;
  if (opts.nnodes && *opts.nnodes != 1) {
    throw UsageError(str_cat("--nnodes ", *opts.nnodes,
                             ": outside a Slurm job hvdrun starts ranks on this machine only; "
                             "run it inside an allocation (salloc -N ", *opts.nnodes,
                             ", or hvdrun sbatch) for more nodes"));
  }
  opts.num_proc = opts.nproc_per_node;
  opts.nproc_per_node.reset();
  opts.nnodes.reset();
  return opts;
}

}  // namespace hvd::launcher::config
