// SPDX-License-Identifier: Apache-2.0
#pragma once
// The variables one srun task gets from `hvdrun exec-rank`: its identity in Horovod's and
// torch's names, the rendezvous, and the one GPU it owns. Computed in the task from SLURM_*
// (never frozen in a batch script), and by --dry-run for every rank with the same function.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "config/env_map.h"
#include "slurm/allocation.h"

namespace hvd::launcher::plan {

struct TaskEnvOptions {
  std::string gpu_env = "CUDA_VISIBLE_DEVICES";  // the variable that selects GPUs
  std::vector<int> gpu_order;                    // local rank i gets visible GPU gpu_order[i]
  std::string master_addr;                       // empty: the step's first node
  int master_port = 0;                           // 0: derived from the job id
  int master_port_base = 0;
  std::vector<std::string> tf_workers;  // --tf-config: every rank's host:port
  // hvdrun's Python packages (config::python_dirs), put in front of the task's PYTHONPATH.
  std::vector<std::string> python_dirs;
  std::string checkpoint_file;  // this rank's checkpoint-notice file; empty: none (--dry-run)
  // The interface towards MASTER_ADDR (slurm/route_interface.h): a fact of the task's node,
  // so exec-rank looks it up there; unset when --dry-run predicts the ranks from afar.
  std::function<std::optional<std::string>(const std::string& master_addr)> interface_towards;
};

/// `task` describes this task; `inherited` is the environment srun gave it (Slurm's GPU
/// variables, SLURM_CPUS_PER_TASK, SLURM_RESTART_COUNT, what the user set). Returns only what
/// exec-rank sets.
EnvMap task_env(const slurm::StepTask& task, const TaskEnvOptions& options, const EnvMap& inherited);

/// The GPUs visible to the task before hvdrun picks one: the tokens of `gpu_env` when Slurm set
/// it, else 0..SLURM_GPUS_ON_NODE-1, else none.
std::vector<std::string> visible_gpus(const std::string& gpu_env, const EnvMap& inherited);

}  // namespace hvd::launcher::plan
