// SPDX-License-Identifier: Apache-2.0
#include "plan/make_plan.h"

#include <unistd.h>

#include <filesystem>
#include <set>

#include "auth/run_secret.h"
#include "binding/cpu_topology.h"
#include "binding/gpu_inventory.h"
#include "config/data_dirs.h"
#include "config/host_spec.h"
#include "config/launch_config.h"
#include "config/torchrun_shape.h"
#include "hvd/error.h"
#include "net/socket.h"
#include "plan/local_plan.h"
#include "plan/mpirun_plan.h"
#include "plan/slurm_plan.h"
#include "proc/program_lookup.h"
#include "profile/profile_catalog.h"
#include "slurm/allocation.h"
#include "slurm/node_address.h"
#include "slurm/slurm_tools.h"

namespace hvd::launcher::plan {
namespace {

// Ports on this machine, all different: the store's (shown by --dry-run; the launch's store
// takes its own), MASTER_PORT, and with --tf-config one per rank.
Endpoints local_endpoints(int num_proc, bool tf_config) {
  std::set<uint16_t> taken;
  const auto pick = [&taken] {
    for (;;) {
      const uint16_t port = net::pick_free_port("127.0.0.1");
      if (taken.insert(port).second) return port;
    }
  };
  Endpoints ep;
  ep.store_port = pick();
  ep.master_port = pick();
  for (int i = 0; tf_config && i < num_proc; ++i) ep.tf_ports.push_back(pick());
  ep.run_id = make_run_id();
  return ep;
}

MachineFacts this_machine(const EnvMap& env, bool horovod_compat, bool with_gpus) {
  MachineFacts facts;
  facts.hostname = config::this_host_name();
  facts.topology = binding::load_cpu_topology();
  if (with_gpus) {
    facts.gpus = binding::find_gpus(env);
    if (!facts.gpus.empty()) binding::fill_gpu_numa(facts.gpus);
  }
  facts.env = env;
  facts.python_dirs = config::python_dirs(horovod_compat);
  return facts;
}

// A run on this machine uses no site profile, but a --profile that names none is still a
// mistake to say, not to drop: the same command in an allocation would fail on it.
void require_known_profile(const config::RunOptions& opts, const EnvMap& env) {
  if (!opts.profile.empty()) static_cast<void>(profile::resolve_profile(opts.profile, env));
}

LaunchPlan local_plan(const config::RunOptions& opts, const EnvMap& env) {
  require_known_profile(opts, env);
  const config::LaunchConfig cfg =
      config::resolve_launch_config(opts, config::defaults_file(), config::this_machine_names(), env);
  const std::string program = proc::resolve_program(cfg.command.front(), env);
  const MachineFacts facts = this_machine(env, cfg.settings.launcher.horovod_compat, true);
  return build_local_plan(cfg, facts, local_endpoints(cfg.num_proc, opts.tf_config), program);
}

std::string find_mpirun(const EnvMap& env) {
  if (std::optional<std::string> path = proc::find_in_path("mpirun", env)) return *path;
  throw LaunchError(
      "--mpi: mpirun was not found in PATH; install Open MPI (Debian: apt-get install "
      "openmpi-bin), or run without --mpi to let hvdrun start the ranks itself");
}

LaunchPlan mpirun_plan(const config::RunOptions& opts, const EnvMap& env) {
  if (opts.tf_config) {
    throw UsageError(
        "--tf-config cannot be used with --mpi on this machine: mpirun gives every rank the same "
        "environment, and TF_CONFIG differs per rank");
  }
  require_known_profile(opts, env);
  const config::LaunchConfig cfg =
      config::resolve_launch_config(opts, config::defaults_file(), config::this_machine_names(), env);
  const std::string program = proc::resolve_program(cfg.command.front(), env);
  const MachineFacts facts = this_machine(env, cfg.settings.launcher.horovod_compat, false);
  return build_mpirun_plan(cfg, facts, find_mpirun(env), net::pick_free_port("127.0.0.1"),
                           geteuid() == 0, program);
}

LaunchPlan slurm_plan(const config::RunOptions& opts, const EnvMap& env) {
  // A batch script has SLURM_PROCID=0 too; only an srun task has a step id.
  if (env.count("SLURM_STEP_ID") > 0 && env.count("SLURM_PROCID") > 0) {
    throw UsageError(str_cat("hvdrun is running inside an srun task (SLURM_STEP_ID=",
                             env.at("SLURM_STEP_ID"), ", SLURM_PROCID=", env.at("SLURM_PROCID"),
                             "); run it from the batch script or the salloc shell, or pass "
                             "--launcher local to start ranks on this node only"));
  }
  std::vector<std::string> sources;
  const config::Settings settings =
      config::resolve_settings(opts, config::defaults_file(), sources, env);
  if (opts.command.empty()) {
    throw UsageError("no program given: put it after the options, e.g. hvdrun -- python3 train.py");
  }
  if (opts.num_proc && *opts.num_proc < 1) {
    throw UsageError(str_cat("-np: must be at least 1, got ", *opts.num_proc));
  }
  const std::string program = proc::resolve_program(opts.command.front(), env);  // a typo fails here, not in every task
  SlurmFacts facts;
  facts.profile = profile::resolve_profile(opts.profile, env);
  facts.alloc = slurm::parse_allocation(env);
  facts.hvdrun = std::filesystem::read_symlink("/proc/self/exe").string();
  facts.env = env;
  facts.node_address = [&env](const std::string& node) { return slurm::node_address(node, env); };
  LaunchPlan plan = build_slurm_plan(opts, settings, sources, facts);
  plan.host = config::this_host_name();
  plan.program = program;
  return plan;
}

}  // namespace

LaunchPlan make_plan(const config::RunOptions& given, const EnvMap& env) {
  const bool in_job = slurm::in_allocation(env);
  const bool to_slurm = given.launcher == "slurm" || (given.launcher == "auto" && in_job);
  const config::RunOptions opts = config::apply_torchrun_shape(given, to_slurm);
  if (opts.launcher == "slurm" && !in_job) {
    throw SchedulerError(
        "--launcher slurm: not inside a Slurm job (SLURM_JOB_ID is not set); "
        "start hvdrun from salloc or a batch script, or use hvdrun sbatch");
  }
  LaunchPlan plan;
  if (to_slurm) {
    plan = slurm_plan(opts, env);
  } else if (opts.mpi) {
    plan = mpirun_plan(opts, env);
  } else {
    plan = local_plan(opts, env);
  }
  if (!plan.settings.tunables.timeline_filename.empty()) plan.timeline_tag = auth::random_hex(8);
  begin_attempt(plan, 0);  // --dry-run shows the first attempt's TORCHELASTIC_* variables
  return plan;
}

void complete_for_launch(LaunchPlan& plan, const EnvMap& env) {
  if (plan.mode != Mode::kSlurm) return;
  // Before the store: a missing srun is the scheduler's problem (exit 4), and says so first.
  plan.starter->path = slurm::find_slurm_tool("srun", env);
  plan.store_bind_address = slurm_store_bind_address(plan, env);
}

}  // namespace hvd::launcher::plan
