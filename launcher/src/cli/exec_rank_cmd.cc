// SPDX-License-Identifier: Apache-2.0
#include "cli/exec_rank_cmd.h"

#include <iostream>

#include "config/data_dirs.h"
#include "exec/rank_parent.h"
#include "exec/shm_cleanup.h"
#include "hvd/env_keys.h"
#include "hvd/error.h"
#include "plan/task_env.h"
#include "proc/checkpoint_file.h"
#include "proc/program_lookup.h"
#include "slurm/allocation.h"
#include "slurm/gpu_ids.h"
#include "slurm/route_interface.h"
#include "util/text.h"

namespace hvd::launcher::cli {

CLI::App* register_exec_rank(CLI::App& app, ExecRankOptions& o) {
  CLI::App* cmd = app.add_subcommand(
      "exec-rank", "Inside an srun task: set the rank's environment and GPU, then exec CMD");
  cmd->add_option("--gpu-env", o.gpu_env, "Variable that selects GPUs (CUDA_VISIBLE_DEVICES)");
  cmd->add_option("--gpu-order", o.gpu_order,
                  "Local rank i gets visible GPU ORDER[i], e.g. 3,2,1,0");
  cmd->add_option("--master-addr", o.master_addr, "MASTER_ADDR (default: the step's first node)");
  cmd->add_option("--master-port", o.master_port, "MASTER_PORT (default: from the job id)");
  cmd->add_option("--master-port-base", o.master_port_base, "Base for the derived MASTER_PORT");
  cmd->add_option("--tf-workers", o.tf_workers, "TF_CONFIG's workers, host:port in rank order");
  cmd->add_flag("--horovod-compat", o.horovod_compat,
                "Also put the horovod package (re-exporting hvdrun.torch) on PYTHONPATH");
  cmd->add_flag("--print-env", o.print_env,
                "Print the variables this task would get; exec nothing");
  cmd->prefix_command();
  return cmd;
}

int run_exec_rank(const ExecRankOptions& o, const EnvMap& env) {
  const slurm::StepTask task = slurm::parse_step_task(env);
  plan::TaskEnvOptions options;
  options.gpu_env = o.gpu_env;
  options.gpu_order = slurm::parse_gpu_ids(o.gpu_order);  // keeps the order as written
  options.master_addr = o.master_addr;
  options.master_port = o.master_port;
  options.master_port_base = o.master_port_base;
  // This same hvdrun (srun runs it from the path of the one that planned the step), so the
  // same folders that --dry-run predicted.
  options.python_dirs = config::python_dirs(o.horovod_compat);
  util::for_each_item(o.tf_workers, [&options](std::string_view worker) {
    if (!worker.empty()) options.tf_workers.emplace_back(worker);
  });
  if (!options.tf_workers.empty() && options.tf_workers.size() != static_cast<size_t>(task.size)) {
    throw UsageError(str_cat("exec-rank --tf-workers: ", options.tf_workers.size(),
                             " workers for a step of ", task.size, " tasks"));
  }
  // Preemption (exec/requeue.h): this rank's checkpoint-notice file, which the notice below
  // creates.
  const std::string run_id = env_string(env, env::kRunId, "");
  const std::string checkpoint_file =
      exec::valid_run_id(run_id) ? proc::checkpoint_file_path(run_id, task.rank) : "";
  options.checkpoint_file = checkpoint_file;
  options.interface_towards = slurm::interface_towards;
  const EnvMap mine = plan::task_env(task, options, env);
  if (o.print_env) {
    for (const auto& [key, value] : mine) std::cout << key << "=" << value << "\n";
    return 0;
  }
  if (o.command.empty()) throw UsageError("exec-rank: no program given after --");
  const std::string program = proc::resolve_program(o.command.front(), env);
  EnvMap full = env;
  for (const auto& [key, value] : mine) full[key] = value;
  std::vector<std::string> entries;
  for (const auto& [key, value] : full) entries.push_back(key + "=" + value);
  // Not an exec: no hvdrun runs on this node to remove what the rank leaves in /dev/shm.
  try {
    exec::run_as_parent(
        program, o.command, std::move(entries),
        [&run_id, &checkpoint_file](pid_t rank_pid) {
          if (!run_id.empty()) exec::remove_process_segments(run_id.c_str(), rank_pid);
          if (!checkpoint_file.empty()) proc::remove_checkpoint_file(checkpoint_file);
        },
        [&checkpoint_file](int) {
          if (!checkpoint_file.empty()) proc::create_checkpoint_file(checkpoint_file);
        });
  } catch (const LaunchError& e) {
    throw LaunchError(str_cat("rank ", task.rank, ": ", e.what()));
  }
}

}  // namespace hvd::launcher::cli
