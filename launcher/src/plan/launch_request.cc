// SPDX-License-Identifier: Apache-2.0
#include "plan/launch_request.h"

#include "config/host_spec.h"
#include "config/settings_layers.h"
#include "config/torchrun_shape.h"
#include "hvd/error.h"
#include "profile/profile_catalog.h"

namespace hvd::launcher::plan {
namespace {

// The refusals that depend on the mode alone, checked before any file is read.
void refuse_for_mode(const config::RunOptions& opts, Mode mode, const EnvMap& env) {
  // A batch script has SLURM_PROCID=0 too; only an srun task has a step id.
  if (mode == Mode::kSlurm && env.count("SLURM_STEP_ID") > 0 && env.count("SLURM_PROCID") > 0) {
    throw UsageError(str_cat("hvdrun is running inside an srun task (SLURM_STEP_ID=",
                             env.at("SLURM_STEP_ID"), ", SLURM_PROCID=", env.at("SLURM_PROCID"),
                             "); run it from the batch script or the salloc shell, or pass "
                             "--launcher local to start ranks on this node only"));
  }
  if (mode == Mode::kMpirun && opts.tf_config) {
    throw UsageError(
        "--tf-config cannot be used with --mpi on this machine: mpirun gives every rank the same "
        "environment, and TF_CONFIG differs per rank");
  }
  // A run on this machine uses no site profile, but a --profile that names none is still a
  // mistake to say, not to drop: the same command in an allocation would fail on it. (Slurm
  // mode resolves the profile with the allocation.)
  if (mode != Mode::kSlurm && !opts.profile.empty()) {
    static_cast<void>(profile::resolve_profile(opts.profile, env));
  }
}

std::vector<config::HostSlots> requested_hosts(const config::RunOptions& opts) {
  if (!opts.hosts.empty() && !opts.hostfile.empty()) {
    throw UsageError("-H and --hostfile are mutually exclusive; give one of them");
  }
  if (!opts.hosts.empty()) return config::parse_host_list(opts.hosts);
  if (!opts.hostfile.empty()) return config::parse_hostfile(opts.hostfile);
  return {};
}

// On this machine (local and mpirun): -np, or the slots that -H or the hostfile gives.
int ranks_on_this_machine(const config::RunOptions& opts, const MachineNames& machine_names) {
  const std::vector<config::HostSlots> hosts = requested_hosts(opts);
  int num_proc = 0;
  if (!hosts.empty()) {
    const std::string origin = opts.hosts.empty() ? opts.hostfile : "-H";
    config::require_local_hosts(hosts, machine_names(), origin);
    const int slots = hosts.front().slots;
    num_proc = opts.num_proc.value_or(slots);
    if (num_proc > slots) {
      throw UsageError(str_cat("-np ", num_proc, " is more than the ", slots, " slots that ",
                               origin, " gives; raise the slots or lower -np"));
    }
  } else {
    if (!opts.num_proc) {
      throw UsageError("-np is required: how many ranks to start (e.g. hvdrun -np 4 -- CMD)");
    }
    num_proc = *opts.num_proc;
  }
  if (num_proc > config::kMaxRanks) {  // -np, or slots of up to 999999
    throw UsageError(
        str_cat("-np ", num_proc, ": hvdrun starts at most ", config::kMaxRanks, " ranks"));
  }
  return num_proc;
}

}  // namespace

LaunchRequest resolve_request(const config::RunOptions& given, Mode mode,
                              const std::string& defaults_path, const MachineNames& machine_names,
                              const EnvMap& env) {
  // torchrun's --nproc-per-node/--nnodes in hvdrun's terms first: -np outside Slurm.
  const config::RunOptions opts = config::apply_torchrun_shape(given, mode == Mode::kSlurm);
  refuse_for_mode(opts, mode, env);
  LaunchRequest request;
  request.mode = mode;
  request.settings = config::resolve_settings(opts, defaults_path, request.sources, env);
  request.bind_to = binding::parse_bind_policy(request.settings.launcher.bind_to);
  if (opts.num_proc && *opts.num_proc < 1) {
    throw UsageError(str_cat("-np: must be at least 1, got ", *opts.num_proc));
  }
  request.num_proc = mode == Mode::kSlurm ? opts.num_proc.value_or(0)
                                          : ranks_on_this_machine(opts, machine_names);
  if (opts.command.empty()) {
    throw UsageError(
        "no program given: put it after the options, e.g. hvdrun -np 4 -- python3 train.py");
  }
  request.command = opts.command;
  request.output_dir = opts.output_filename;
  request.mpi = opts.mpi;
  request.tf_config = opts.tf_config;
  request.profile = opts.profile;
  request.srun_args = opts.srun_args;
  request.nproc_per_node = opts.nproc_per_node;
  request.nnodes = opts.nnodes;
  return request;
}

}  // namespace hvd::launcher::plan
