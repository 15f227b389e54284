// SPDX-License-Identifier: Apache-2.0
#include "cli/exec_rank_cmd.h"

#include <algorithm>
#include <chrono>
#include <iostream>
#include <optional>

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
#include "why/rank_dir.h"
#include "hvd/why_protocol.h"
#include "store/kv_client.h"

namespace hvd::launcher::cli {
namespace {

// The rank's folder for `hvdrun why`, or none (with a warning) when the user's folder of running
// jobs cannot be used: that costs the verdict this rank's Python stack, not the job.
std::optional<why::RankDir> rank_why_dir(const std::string& run_id, int rank, const EnvMap& env) {
  if (!exec::valid_run_id(run_id)) return std::nullopt;
  try {
    return why::RankDir::create(run_id, rank, why::node_name(env));
  } catch (const ConfigError& e) {
    std::cerr << "hvdrun exec-rank: warning: rank " << rank
              << "'s stack will be missing from hvdrun why: " << e.what() << "\n";
    return std::nullopt;
  }
}

// The rank's start is recorded for `hvdrun why-node`; a rank that stays stopped is reported
// as a stall through the run's store (the key libhvd's coordinator writes), once per stall
// warning period, so that hvdrun gives the verdict and, in time, stops the hung job: hvdrun
// cannot see this node's processes, and the stopped rank's libhvd cannot speak.
exec::RankWatch stop_watch(const EnvMap& rank_env, int rank,
                           const std::optional<why::RankDir>& why_dir) {
  exec::RankWatch watch;
  watch.on_started = [&why_dir](pid_t rank_pid) {
    if (why_dir) why_dir->record(rank_pid);
  };
  if (rank_env.count(env::kStoreAddr) == 0 || rank_env.count(env::kRunSecret) == 0) return watch;
  double warning_s = 60;  // libhvd's default; a malformed value is libhvd's to refuse
  try {
    warning_s = std::max(1.0, hvd::env_double(rank_env, env::kStallCheckTime, 60.0));
  } catch (const Error&) {
  }
  watch.stop_repeat = std::chrono::milliseconds(static_cast<int64_t>(warning_s * 1000));
  watch.while_stopped = [&rank_env, rank] {
    try {
      store::KvClient client = store::connect_from_env(rank_env, std::chrono::seconds(3));
      client.set(hvd::why::kWhyStallKey, str_cat("rank ", rank, " is stopped"));
    } catch (const Error&) {
      // The store is gone (the job is ending) or unreachable: nothing to tell.
    }
  };
  return watch;
}

}  // namespace

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
  // hvdrun's job folder is on hvdrun's node: the rank's Python stack dump goes to a folder on
  // this node, where `hvdrun why-node` finds it (why/rank_dir.h).
  std::optional<why::RankDir> why_dir = rank_why_dir(run_id, task.rank, env);
  if (why_dir) full[env::kWhyDir] = why_dir->path();
  std::vector<std::string> entries;
  for (const auto& [key, value] : full) entries.push_back(key + "=" + value);
  // Not an exec: no hvdrun runs on this node to remove what the rank leaves in /dev/shm.
  try {
    exec::run_as_parent(
        program, o.command, std::move(entries),
        [&run_id, &checkpoint_file, &why_dir](pid_t rank_pid) {
          if (!run_id.empty()) exec::remove_process_segments(run_id.c_str(), rank_pid);
          if (!checkpoint_file.empty()) proc::remove_checkpoint_file(checkpoint_file);
          if (why_dir) why_dir->remove();
        },
        [&checkpoint_file](int) {
          if (!checkpoint_file.empty()) proc::create_checkpoint_file(checkpoint_file);
        },
        stop_watch(full, task.rank, why_dir));
  } catch (const LaunchError& e) {
    throw LaunchError(str_cat("rank ", task.rank, ": ", e.what()));
  }
}

}  // namespace hvd::launcher::cli
