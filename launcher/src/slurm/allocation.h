// SPDX-License-Identifier: Apache-2.0
#pragma once
// The Slurm job, and one task's place in a running step, as the SLURM_* environment describes
// them. Pure parsers over an EnvMap (house style: only main() reads the real environment).

#include <string>
#include <vector>

#include "config/env_map.h"

namespace hvd::launcher::slurm {

/// The job allocation as seen from the batch script or salloc shell.
struct Allocation {
  std::string job_id;               // SLURM_JOB_ID (or SLURM_JOBID)
  std::string cluster_name;         // SLURM_CLUSTER_NAME, may be empty
  std::vector<std::string> nodes;   // SLURM_JOB_NODELIST (or SLURM_NODELIST), expanded
  std::vector<int> tasks_per_node;  // SLURM_TASKS_PER_NODE expanded, one per node; empty if unset
  std::vector<int> cpus_per_node;   // SLURM_JOB_CPUS_PER_NODE expanded; empty if unset
  int ntasks = 0;                   // SLURM_NTASKS (or SLURM_NPROCS); 0 if unset
  int gpus_on_node = -1;            // SLURM_GPUS_ON_NODE; -1 if unset
  std::vector<int> job_gpus;        // SLURM_JOB_GPUS; empty if unset
  std::string partition;            // SLURM_JOB_PARTITION, may be empty
};

/// True when SLURM_JOB_ID or SLURM_JOBID is set to a non-empty value.
bool in_allocation(const EnvMap& env);

/// Reads the allocation. Throws SchedulerError naming the variable when the job id or the node
/// list is missing or malformed, when an optional variable that is set is malformed, or when
/// SLURM_TASKS_PER_NODE or SLURM_JOB_CPUS_PER_NODE has a different number of entries than the
/// node list has nodes (as inside an srun step over part of the job, where Slurm rewrites
/// SLURM_TASKS_PER_NODE for the step but not SLURM_JOB_NODELIST).
Allocation parse_allocation(const EnvMap& env);

/// The task's place in a running step (what `hvdrun exec-rank` reads inside srun).
struct StepTask {
  int rank = 0;        // SLURM_PROCID
  int size = 0;        // SLURM_NTASKS (step; fallback SLURM_NPROCS)
  int local_rank = 0;  // SLURM_LOCALID
  int local_size = 0;  // this node's entry of SLURM_STEP_TASKS_PER_NODE (fallback
                       // SLURM_TASKS_PER_NODE)
  int node_rank = 0;   // SLURM_NODEID
  int num_nodes = 0;   // SLURM_STEP_NUM_NODES (fallback SLURM_NNODES, SLURM_JOB_NUM_NODES)
  std::vector<std::string> step_nodes;  // SLURM_STEP_NODELIST (fallback SLURM_JOB_NODELIST,
                                        // SLURM_NODELIST: then the job's nodes), expanded
  std::string job_id;                   // SLURM_JOB_ID (or SLURM_JOBID)
  std::string step_id;                  // SLURM_STEP_ID (or SLURM_STEPID), may be empty
};

/// Reads the step task. Throws SchedulerError naming the variable when one is missing or
/// malformed, or when the values disagree: it checks 0 <= rank < size,
/// 0 <= local_rank < local_size, 0 <= node_rank < num_nodes, that the tasks-per-node list has
/// an entry for node_rank, and that SLURM_STEP_NODELIST has num_nodes nodes (a fallback job node
/// list needs at least num_nodes).
StepTask parse_step_task(const EnvMap& env);

}  // namespace hvd::launcher::slurm
