// SPDX-License-Identifier: Apache-2.0
#include "cli/slurm_run.h"

#include <unistd.h>

#include <filesystem>
#include <functional>
#include <iostream>

#include <nlohmann/json.hpp>

#include "auth/run_secret.h"
#include "cli/timeline_finish.h"
#include "config/data_dirs.h"
#include "config/launch_config.h"
#include "exec/guard.h"
#include "exec/output_router.h"
#include "exec/program_lookup.h"
#include "exec/srun_report.h"
#include "exec/supervisor.h"
#include "hvd/env_keys.h"
#include "hvd/error.h"
#include "local/host_spec.h"
#include "plan/launch_plan.h"
#include "plan/tf_config.h"
#include "profile/profile_catalog.h"
#include "profile/profile_guards.h"
#include "profile/profile_loader.h"
#include "slurm/node_address.h"
#include "slurm/slurm_tools.h"
#include "slurm/srun_command.h"
#include "slurm/store_address.h"
#include "slurm/task_env.h"
#include "store/kv_server.h"

namespace hvd::launcher::cli {
namespace {

// Everything the srun step needs, decided before anything starts.
struct StepPlan {
  profile::SiteProfile profile;
  config::Settings settings;
  std::vector<std::string> sources;
  slurm::Allocation alloc;
  slurm::StepShape shape;
  slurm::TaskEnvOptions task_options;
  std::vector<std::string> srun;  // the srun command line
  EnvMap step_env;                // what hvdrun adds to the environment srun passes on
};

// srun's --mpi plugin: only with --mpi, and then the profile's, the site's way to start MPI
// programs (a profile without one leaves it to the cluster's MpiDefault, which may be
// cray_shasta or pmi2, so hvdrun does not guess pmix). Without --mpi srun gets none: libhvd and
// torch do not need PMI under hvdrun (they meet through hvdrun's store and MASTER_ADDR), and the
// plugin's set-up costs more than hvdrun itself: on the test cluster about 80 ms per launch,
// against 28 ms for hvdrun over plain srun (scripts/bench-slurm-launch.sh). The price: an MPI
// program started without --mpi, on a cluster whose MpiDefault is none, runs as N singletons. The
// same holds on this machine, where only --mpi brings mpirun, so there is one rule: MPI programs
// need --mpi.
std::string srun_mpi_plugin(const config::RunOptions& opts, const profile::SiteProfile& profile) {
  return opts.mpi ? profile.mpi : "";
}

// TF_CONFIG's workers in rank order: each node's address with one port per local rank.
std::vector<std::string> tf_workers(const StepPlan& p, const EnvMap& env) {
  std::vector<std::string> workers;
  for (int node = 0; node < p.shape.nodes; ++node) {
    const std::string addr = slurm::node_address(p.alloc.nodes[static_cast<size_t>(node)], env);
    for (int local = 0; local < p.shape.tasks_per_node[static_cast<size_t>(node)]; ++local) {
      workers.push_back(str_cat(addr, ":", plan::tf_port_for(p.alloc.job_id, local)));
    }
  }
  return workers;
}

StepPlan plan_step(const config::RunOptions& opts, const EnvMap& env) {
  StepPlan p;
  p.settings = config::resolve_settings(opts, config::defaults_file(), p.sources, env);
  if (opts.command.empty()) {
    throw UsageError("no program given: put it after the options, e.g. hvdrun -- python3 train.py");
  }
  if (opts.num_proc && *opts.num_proc < 1) {
    throw UsageError(str_cat("-np: must be at least 1, got ", *opts.num_proc));
  }
  exec::resolve_program(opts.command.front(), env);  // a typo fails here, not in every task
  p.profile = resolve_profile(opts.profile, env);
  p.alloc = slurm::parse_allocation(env);
  p.shape = slurm::plan_step(p.alloc, p.profile, opts.num_proc.value_or(0));

  p.task_options.gpu_env = p.profile.gpu_env;
  p.task_options.gpu_order = p.profile.gpu_order;
  p.task_options.master_addr = slurm::node_address(p.alloc.nodes.front(), env);
  p.task_options.master_port = slurm::master_port_for(p.alloc.job_id, p.profile.master_port_base);
  if (opts.tf_config) p.task_options.tf_workers = tf_workers(p, env);
  p.task_options.python_dirs = config::python_dirs(p.settings.launcher.horovod_compat);
  p.profile.mpi = srun_mpi_plugin(opts, p.profile);

  slurm::SrunRequest request;
  request.shape = p.shape;
  request.hvdrun = std::filesystem::read_symlink("/proc/self/exe").string();
  request.exec_rank_args = slurm::exec_rank_args_for(p.profile);
  request.exec_rank_args.insert(request.exec_rank_args.end(),
                                {"--master-addr", p.task_options.master_addr, "--master-port",
                                 std::to_string(p.task_options.master_port)});
  if (p.settings.launcher.horovod_compat) request.exec_rank_args.push_back("--horovod-compat");
  if (!p.task_options.tf_workers.empty()) {
    std::string workers;
    for (const std::string& w : p.task_options.tf_workers)
      workers += (workers.empty() ? "" : ",") + w;
    request.exec_rank_args.insert(request.exec_rank_args.end(), {"--tf-workers", workers});
  }
  request.command = opts.command;
  request.user_srun_args = opts.srun_args;
  p.srun = slurm::build_srun_command(request, p.profile);

  p.step_env = config::tunables_env(p.settings.tunables);
  // The site's defaults; a value already in the environment (the user's, or the batch script's
  // export) wins.
  for (const profile::EnvVar& v : p.profile.env) {
    if (env.count(v.name) == 0) p.step_env[v.name] = v.value;
  }
  profile::GuardContext guard;
  guard.srun_flags = opts.srun_args;
  guard.rank_env = env;
  for (const auto& [k, v] : p.step_env) guard.rank_env[k] = v;
  profile::check_guards(p.profile, guard);
  return p;
}

// What exec-rank will compute in each task, predicted with the same function. Linear in
// ranks: the step's node list and the inherited environment are built once and the one
// StepTask is updated per rank (copying the node list per rank made 16,384 nodes take 9 s).
nlohmann::json predicted_ranks(const StepPlan& p, const EnvMap& env) {
  nlohmann::json ranks = nlohmann::json::array();
  slurm::StepTask t;
  t.size = p.shape.ntasks;
  t.num_nodes = p.shape.nodes;
  t.step_nodes.assign(p.alloc.nodes.begin(), p.alloc.nodes.begin() + p.shape.nodes);
  t.job_id = p.alloc.job_id;
  EnvMap inherited = env;
  inherited.erase(p.profile.gpu_env);  // Slurm sets it per step; predict from the counts
  if (p.alloc.gpus_on_node < 0 && p.profile.gpus_per_node > 0) {
    inherited["SLURM_GPUS_ON_NODE"] = std::to_string(p.profile.gpus_per_node);
  }
  int rank = 0;
  for (int node = 0; node < p.shape.nodes; ++node) {
    const int here = p.shape.tasks_per_node[static_cast<size_t>(node)];
    for (int local = 0; local < here; ++local, ++rank) {
      t.rank = rank;
      t.local_rank = local;
      t.local_size = here;
      t.node_rank = node;
      ranks.push_back({{"rank", rank},
                       {"node", t.step_nodes[static_cast<size_t>(node)]},
                       {"local_rank", local},
                       {"env", slurm::task_env(t, p.task_options, inherited)}});
    }
  }
  return ranks;
}

// The address the store binds, from the step's nodes (slurm/store_address.h). A few other
// nodes are enough to find the route; resolving all 16,384 would cost seconds.
std::string store_bind_address(const StepPlan& p, const EnvMap& env) {
  constexpr size_t kPeersTried = 3;
  const std::string self = local::this_host_name();
  const auto peers = [&] {
    std::vector<std::string> addresses;
    for (int i = 0; i < p.shape.nodes && addresses.size() < kPeersTried; ++i) {
      const std::string& node = p.alloc.nodes[static_cast<size_t>(i)];
      if (node != self) addresses.push_back(slurm::node_address(node, env));
    }
    return addresses;
  };
  return slurm::store_bind_address_lazily(slurm::node_address(self, env), peers,
                                          slurm::system_address_probes());
}

nlohmann::json plan_json(const StepPlan& p, const EnvMap& env) {
  return {{"mode", "slurm"},
          {"profile", {{"name", p.profile.name}, {"sources", p.profile.sources}}},
          {"job", {{"id", p.alloc.job_id}, {"nodes", p.alloc.nodes}}},
          {"step",
           {{"nodes", p.shape.nodes},
            {"ntasks", p.shape.ntasks},
            {"tasks_per_node", p.shape.tasks_per_node}}},
          {"srun", p.srun},
          {"srun_line", slurm::shell_join(p.srun)},
          {"step_env", p.step_env},
          {"settings", config::to_json(p.settings)},
          {"settings_sources", p.sources},
          {"ranks", predicted_ranks(p, env)}};
}

}  // namespace

profile::SiteProfile resolve_profile(const std::string& requested, const EnvMap& env) {
  if (!requested.empty()) return profile::find_profile(requested, env);
  const std::optional<std::string> detected = profile::detect_profile(env, local::this_host_name());
  return detected ? profile::find_profile(*detected, env) : profile::embedded_local_profile();
}

int run_in_allocation(const config::RunOptions& opts, const EnvMap& env) {
  // A batch script has SLURM_PROCID=0 too; only an srun task has a step id.
  if (env.count("SLURM_STEP_ID") > 0 && env.count("SLURM_PROCID") > 0) {
    throw UsageError(str_cat("hvdrun is running inside an srun task (SLURM_STEP_ID=",
                             env.at("SLURM_STEP_ID"), ", SLURM_PROCID=", env.at("SLURM_PROCID"),
                             "); run it from the batch script or the salloc shell, or pass "
                             "--launcher local to start ranks on this node only"));
  }
  StepPlan p = plan_step(opts, env);
  if (opts.dry_run) {
    std::cout << plan_json(p, env).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << std::endl;
    return 0;
  }
  // Before the store: a missing srun is the scheduler's problem (exit 4), and says so first.
  const std::string srun_path = slurm::find_slurm_tool("srun", env);
  exec::block_forwarded_signals();  // before the store's thread starts: it inherits the mask
  exec::Guard guard = exec::Guard::start();  // before any thread, too (exec/guard.h)
  // The secret reaches the tasks through srun's environment (--export=ALL passes it on, and
  // exec-rank adds to its environment without removing anything); never argv or step_env,
  // which --dry-run prints.
  const auth::RunSecret secret = auth::RunSecret::generate();
  const std::string bind_address = store_bind_address(p, env);
  store::KvServer store(bind_address, 0, secret, store::StoreLimits::for_ranks(p.shape.ntasks));
  p.step_env[env::kStoreAddr] = bind_address;
  p.step_env[env::kStorePort] = std::to_string(store.port());
  p.step_env[env::kRunId] = plan::make_run_id();
  guard.watch_run_segments(p.step_env[env::kRunId]);  // this node's only

  EnvMap full = env;
  for (const auto& [k, v] : p.step_env) full[k] = v;
  full[env::kRunSecret] = secret.hex();
  exec::Child srun{"srun", {srun_path, p.srun, {}, {}}, -1, {}};
  srun.request.env.reserve(full.size());
  for (const auto& [k, v] : full) srun.request.env.push_back(k + "=" + v);
  exec::OutputRouter router(p.shape.ntasks, p.settings.launcher.tag_output, opts.output_filename,
                            STDOUT_FILENO, STDERR_FILENO);
  exec::SrunReport report;
  router.set_unlabeled_observer([&report](std::string_view line) { report.observe(line); });
  srun.explain_failure = [&report]() -> std::optional<std::pair<int, std::string>> {
    const auto& f = report.first_failure();
    if (!f) return std::nullopt;
    return std::make_pair(f->exit_code, str_cat("rank ", f->tasks, " on ", f->node, " ", f->how));
  };
  std::vector<exec::Child> children;
  children.push_back(std::move(srun));
  exec::Supervisor supervisor(std::move(children), router,
                              std::chrono::seconds(p.settings.launcher.kill_grace_seconds), &guard);
  const int code = supervisor.run();
  guard.finish();
  finish_timeline(p.settings.tunables, p.shape.ntasks);
  return code;
}

}  // namespace hvd::launcher::cli
