// SPDX-License-Identifier: Apache-2.0
#pragma once
// `hvdrun exec-rank -- CMD`: the shim each srun task runs. It derives the rank's identity from
// SLURM_*, picks its GPU, sets the rendezvous, and runs CMD as its child, in Slurm's task (PMIx,
// cgroups and --kill-on-bad-exit keep working): it waits, removes the shared-memory segments
// the rank left, and ends exactly as the rank ended (exec/rank_parent.h).

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "config/env_map.h"

namespace hvd::launcher::cli {

struct ExecRankOptions {
  std::string gpu_env = "CUDA_VISIBLE_DEVICES";
  std::string gpu_order;    // "3,2,1,0"; empty = identity
  std::string master_addr;  // empty = the step's first node
  int master_port = 0;      // 0 = derived from the job id
  int master_port_base = 0;
  std::string tf_workers;  // "host:port,..." for TF_CONFIG; empty = no TF_CONFIG
  bool horovod_compat = false;  // --horovod-compat: also the horovod shim on PYTHONPATH
  bool print_env = false;  // print the variables instead of exec'ing (for checks)
  std::vector<std::string> command;
};

CLI::App* register_exec_rank(CLI::App& app, ExecRankOptions& options);

/// Runs the command with the rank's environment and ends this process as it ended; returns
/// only with --print-env.
/// Throws SchedulerError outside an srun task, LaunchError when the program is missing.
int run_exec_rank(const ExecRankOptions& options, const EnvMap& env);

}  // namespace hvd::launcher::cli
