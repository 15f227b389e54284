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

LaunchPlan local_plan(const LaunchRequest& request, const std::string& program,
                      const EnvMap& env) {
  const MachineFacts facts = this_machine(env, request.settings.launcher.horovod_compat, true);
  return build_local_plan(request, facts, local_endpoints(request.num_proc, request.tf_config),
                          program);
}

std::string find_mpirun(const EnvMap& env) {
  if (std::optional<std::string> path = proc::find_in_path("mpirun", env)) return *path;
  throw LaunchError(
      "--mpi: mpirun was not found in PATH; install Open MPI (Debian: apt-get install "
      "openmpi-bin), or run without --mpi to let hvdrun start the ranks itself");
}

LaunchPlan mpirun_plan(const LaunchRequest& request, const std::string& program,
                       const EnvMap& env) {
  const MachineFacts facts = this_machine(env, request.settings.launcher.horovod_compat, false);
  return build_mpirun_plan(request, facts, find_mpirun(env), net::pick_free_port("127.0.0.1"),
                           geteuid() == 0, program);
}

LaunchPlan slurm_plan(const LaunchRequest& request, const std::string& program,
                      const EnvMap& env) {
  SlurmFacts facts;
  facts.profile = profile::resolve_profile(request.profile, env);
  facts.alloc = slurm::parse_allocation(env);
  facts.hvdrun = std::filesystem::read_symlink("/proc/self/exe").string();
  facts.env = env;
  facts.node_address = [&env](const std::string& node) { return slurm::node_address(node, env); };
  return build_slurm_plan(request, facts, config::this_host_name(), program);
}

// Slurm mode inside an allocation (or with --launcher slurm, which then requires one),
// mpirun with --mpi, else local.
Mode pick_mode(const config::RunOptions& opts, const EnvMap& env) {
  const bool in_job = slurm::in_allocation(env);
  if (opts.launcher == "slurm" && !in_job) {
    throw SchedulerError(
        "--launcher slurm: not inside a Slurm job (SLURM_JOB_ID is not set); "
        "start hvdrun from salloc or a batch script, or use hvdrun sbatch");
  }
  if (opts.launcher == "slurm" || (opts.launcher == "auto" && in_job)) return Mode::kSlurm;
  return opts.mpi ? Mode::kMpirun : Mode::kLocal;
}

}  // namespace

LaunchPlan make_plan(const config::RunOptions& opts, const EnvMap& env) {
  const LaunchRequest request = resolve_request(
      opts, pick_mode(opts, env), config::defaults_file(), config::this_machine_names, env);
  // A typo fails here, once, and not in every rank or srun task.
  const std::string program = proc::resolve_program(request.command.front(), env);
  LaunchPlan plan;
  switch (request.mode) {
    case Mode::kSlurm:
      plan = slurm_plan(request, program, env);
      break;
    case Mode::kMpirun:
      plan = mpirun_plan(request, program, env);
      break;
    case Mode::kLocal:
      plan = local_plan(request, program, env);
      break;
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
