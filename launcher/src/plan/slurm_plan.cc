// SPDX-License-Identifier: Apache-2.0
#include "plan/slurm_plan.h"

#include "config/data_dirs.h"
#include "config/host_spec.h"
#include "hvd/env_keys.h"
#include "hvd/error.h"
#include "plan/task_env.h"
#include "plan/tf_config.h"
#include "profile/profile_guards.h"
#include "slurm/allocation.h"
#include "slurm/node_address.h"
#include "slurm/step_per_node.h"
#include "slurm/store_address.h"

namespace hvd::launcher::plan {
namespace {

// srun's --mpi plugin: only with --mpi, and then the profile's, the site's way to start MPI
// programs (a profile without one leaves it to the cluster's MpiDefault, which may be
// cray_shasta or pmi2, so hvdrun does not guess pmix). Without --mpi srun gets none: libhvd and
// torch do not need PMI under hvdrun (they meet through hvdrun's store and MASTER_ADDR), and the
// plugin's set-up costs more than hvdrun itself: on the test cluster 60-90 ms per launch,
// against 25-45 ms for hvdrun over plain srun (scripts/bench-slurm-launch.sh). The price: an MPI
// program started without --mpi, on a cluster whose MpiDefault is none, runs as N singletons. The
// same holds on this machine, where only --mpi brings mpirun, so there is one rule: MPI programs
// need --mpi.
std::string srun_mpi_plugin(const LaunchRequest& request, const profile::SiteProfile& profile) {
  return request.mpi ? profile.mpi : "";
}

// TF_CONFIG's workers in rank order: each node's address with one port per local rank.
std::vector<std::string> tf_workers(
    const slurm::Allocation& alloc, const slurm::StepShape& shape,
    const std::function<std::string(const std::string&)>& node_address) {
  std::vector<std::string> workers;
  for (int node = 0; node < shape.nodes; ++node) {
    const std::string addr = node_address(alloc.nodes[static_cast<size_t>(node)]);
    for (int local = 0; local < shape.tasks_per_node[static_cast<size_t>(node)]; ++local) {
      workers.push_back(str_cat(addr, ":", tf_port_for(alloc.job_id, local)));
    }
  }
  return workers;
}

// What exec-rank will compute in each task, predicted with the same function. Linear in
// ranks: the step's node list and the inherited environment are built once and the one
// StepTask is updated per rank (copying the node list per rank made 16,384 nodes take 9 s).
std::vector<RankPlan> predicted_ranks(const slurm::Allocation& alloc,
                                      const slurm::StepShape& shape,
                                      const profile::SiteProfile& profile,
                                      const plan::TaskEnvOptions& options, const EnvMap& env) {
  std::vector<RankPlan> ranks;
  ranks.reserve(static_cast<size_t>(shape.ntasks));
  slurm::StepTask t;
  t.size = shape.ntasks;
  t.num_nodes = shape.nodes;
  t.step_nodes.assign(alloc.nodes.begin(), alloc.nodes.begin() + shape.nodes);
  t.job_id = alloc.job_id;
  EnvMap inherited = env;
  inherited.erase(profile.gpu_env);  // Slurm sets it per step; predict from the counts
  if (alloc.gpus_on_node < 0 && profile.gpus_per_node > 0) {
    inherited["SLURM_GPUS_ON_NODE"] = std::to_string(profile.gpus_per_node);
  }
  int rank = 0;
  for (int node = 0; node < shape.nodes; ++node) {
    const int here = shape.tasks_per_node[static_cast<size_t>(node)];
    for (int local = 0; local < here; ++local, ++rank) {
      t.rank = rank;
      t.local_rank = local;
      t.local_size = here;
      t.node_rank = node;
      RankPlan r;
      r.rank = rank;
      r.local_rank = local;
      r.host = t.step_nodes[static_cast<size_t>(node)];
      r.env = plan::task_env(t, options, inherited);
      ranks.push_back(std::move(r));
    }
  }
  return ranks;
}

// The step's srun line: the shape, and exec-rank with the rendezvous and the profile's options.
slurm::SrunRequest srun_request(const LaunchRequest& request, const slurm::StepShape& shape,
                                const std::string& hvdrun, const profile::SiteProfile& profile,
                                const plan::TaskEnvOptions& task_options) {
  slurm::SrunRequest srun_line;
  srun_line.shape = shape;
  srun_line.hvdrun = hvdrun;
  srun_line.exec_rank_args = slurm::exec_rank_args_for(profile);
  srun_line.exec_rank_args.insert(srun_line.exec_rank_args.end(),
                                {"--master-addr", task_options.master_addr, "--master-port",
                                 std::to_string(task_options.master_port)});
  if (request.settings.launcher.horovod_compat) {
    srun_line.exec_rank_args.push_back("--horovod-compat");
  }
  if (!task_options.tf_workers.empty()) {
    std::string workers;
    for (const std::string& w : task_options.tf_workers) workers += (workers.empty() ? "" : ",") + w;
    srun_line.exec_rank_args.insert(srun_line.exec_rank_args.end(), {"--tf-workers", workers});
  }
  srun_line.command = request.command;
  srun_line.user_srun_args = request.srun_args;
  return srun_line;
}

}  // namespace

LaunchPlan build_slurm_plan(const LaunchRequest& request, const SlurmFacts& facts,
                            const std::string& host, const std::string& program) {
  const EnvMap& env = facts.env;
  const config::Settings& settings = request.settings;
  LaunchPlan plan = plan_from_request(Mode::kSlurm, request, host, program);
  plan.hosts_store = true;

  profile::SiteProfile profile = facts.profile;
  const slurm::Allocation& alloc = facts.alloc;
  const slurm::StepShape shape =
      request.nproc_per_node
          ? slurm::plan_step_per_node(alloc, request.nnodes.value_or(0), *request.nproc_per_node)
          : slurm::plan_step(alloc, profile, request.num_proc);
  plan.size = shape.ntasks;
  plan.slurm = SlurmStep{profile.name, profile.sources, alloc.job_id, alloc.nodes, shape,
                         facts.hvdrun};

  plan::TaskEnvOptions task_options;
  task_options.gpu_env = profile.gpu_env;
  task_options.gpu_order = profile.gpu_order;
  task_options.master_addr = facts.node_address(alloc.nodes.front());
  task_options.master_port = slurm::master_port_for(alloc.job_id, profile.master_port_base);
  if (request.tf_config) task_options.tf_workers = tf_workers(alloc, shape, facts.node_address);
  task_options.python_dirs = config::python_dirs(settings.launcher.horovod_compat);
  profile.mpi = srun_mpi_plugin(request, profile);
  plan.endpoints.master_addr = task_options.master_addr;
  plan.endpoints.master_port = static_cast<uint16_t>(task_options.master_port);
  plan.endpoints.run_id = make_run_id();

  Starter srun;
  srun.tool = "srun";
  srun.argv = slurm::build_srun_command(
      srun_request(request, shape, facts.hvdrun, profile, task_options), profile);
  srun.env = config::tunables_env(settings.tunables);
  // The site's defaults; a value already in the environment (the user's, or the batch script's
  // export) wins.
  for (const profile::EnvVar& v : profile.env) {
    if (env.count(v.name) == 0) srun.env[v.name] = v.value;
  }
  profile::GuardContext guard;
  guard.srun_flags = request.srun_args;
  guard.rank_env = env;
  for (const auto& [k, v] : srun.env) guard.rank_env[k] = v;
  profile::check_guards(profile, guard);
  plan.starter = std::move(srun);
  plan.ranks = predicted_ranks(alloc, shape, profile, task_options, env);
  return plan;
}

// A few other nodes are enough to find the route; resolving all 16,384 would cost seconds.
std::string slurm_store_bind_address(const LaunchPlan& plan, const EnvMap& env) {
  constexpr size_t kPeersTried = 3;
  const std::string self = config::this_host_name();
  const SlurmStep& step = *plan.slurm;
  const auto peers = [&] {
    std::vector<std::string> addresses;
    for (int i = 0; i < step.shape.nodes && addresses.size() < kPeersTried; ++i) {
      const std::string& node = step.job_nodes[static_cast<size_t>(i)];
      if (node != self) addresses.push_back(slurm::node_address(node, env));
    }
    return addresses;
  };
  return slurm::store_bind_address_lazily(slurm::node_address(self, env), peers,
                                          slurm::system_address_probes());
}

}  // namespace hvd::launcher::plan
