// SPDX-License-Identifier: Apache-2.0
#include "slurm/step_per_node.h"

#include "config/run_options.h"
#include "hvd/error.h"

namespace hvd::launcher::slurm {

StepShape plan_step_per_node(const Allocation& alloc, int nodes, int per_node) {
  const int job_nodes = static_cast<int>(alloc.nodes.size());
  if (nodes == 0) nodes = job_nodes;
  if (nodes > job_nodes) {
    throw UsageError(str_cat("--nnodes ", nodes, " is more than the ", job_nodes,
                             " node(s) of job ", alloc.job_id,
                             " (SLURM_JOB_NODELIST); ask sbatch/salloc for more, or lower it"));
  }
  const long long ntasks = static_cast<long long>(nodes) * per_node;
  if (ntasks > config::kMaxRanks) {
    throw UsageError(str_cat("--nproc-per-node ", per_node, " on ", nodes, " node(s): ", ntasks,
                             " ranks; hvdrun starts at most ", config::kMaxRanks));
  }
  if (alloc.ntasks > 0 && ntasks > alloc.ntasks) {
    throw UsageError(str_cat("--nproc-per-node ", per_node, " on ", nodes, " node(s) is ", ntasks,
                             " ranks, more than the ", alloc.ntasks, " tasks of job ",
                             alloc.job_id, " (SLURM_NTASKS); ask sbatch/salloc for more"));
  }
  for (size_t i = 0; i < alloc.tasks_per_node.size() && i < static_cast<size_t>(nodes); ++i) {
    if (alloc.ntasks > 0 && per_node > alloc.tasks_per_node[i]) {
      throw UsageError(str_cat("--nproc-per-node ", per_node, " is more than the ",
                               alloc.tasks_per_node[i], " tasks job ", alloc.job_id, " has on ",
                               alloc.nodes[i], " (SLURM_TASKS_PER_NODE)"));
    }
  }
  StepShape shape;
  shape.nodes = nodes;
  shape.ntasks = static_cast<int>(ntasks);
  shape.tasks_per_node.assign(static_cast<size_t>(nodes), per_node);
  return shape;
}

}  // namespace hvd::launcher::slurm
