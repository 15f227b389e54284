// SPDX-License-Identifier: Apache-2.0
#pragma once
// LaunchRequest: the command line of `hvdrun [run]`, resolved and validated once, before any
// plan is built. Every plan builder (plan/local_plan.h, plan/mpirun_plan.h, plan/slurm_plan.h)
// takes it, so that a check such as "no program given" lives here and nowhere else.

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "binding/binding_policy.h"
#include "config/env_map.h"
#include "config/run_options.h"
#include "config/tunables.h"

namespace hvd::launcher::plan {

/// How the ranks are started (plan/launch_plan.h says more).
enum class Mode { kLocal, kSlurm, kMpirun };

struct LaunchRequest {
  Mode mode = Mode::kLocal;
  std::vector<std::string> command;  // never empty
  // Local and mpirun: -np, or the slots of -H / --hostfile. Slurm: -np, or 0 for every task
  // of the allocation (slurm::plan_step decides).
  int num_proc = 0;
  // Slurm only: torchrun's --nproc-per-node N (ranks on each node) and --nnodes M
  // (config/torchrun_shape.h); elsewhere they became num_proc.
  std::optional<int> nproc_per_node;
  std::optional<int> nnodes;
  config::Settings settings;
  std::vector<std::string> sources;  // the settings files merged, in order
  binding::BindPolicy bind_to = binding::BindPolicy::kAuto;
  std::string output_dir;            // --output-filename; empty: none
  bool mpi = false;
  bool tf_config = false;
  std::string profile;                 // --profile as given; empty: detect (Slurm)
  std::vector<std::string> srun_args;  // --srun-arg
};

/// This machine's names, asked for only when -H or --hostfile needs them (config/host_spec.h).
using MachineNames = std::function<std::set<std::string>()>;

/// Resolves `opts` for `mode`: the settings' layers (config/settings_layers.h, with
/// `defaults_path`), the rank count, and every check on the options that does not need the
/// machine, the allocation or the program's path. Throws UsageError for inconsistent options
/// (exit 2), ConfigError for bad files or HOROVOD_* values (exit 3).
LaunchRequest resolve_request(const config::RunOptions& opts, Mode mode,
                              const std::string& defaults_path, const MachineNames& machine_names,
                              const EnvMap& env);

}  // namespace hvd::launcher::plan
