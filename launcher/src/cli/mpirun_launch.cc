// SPDX-License-Identifier: Apache-2.0
#include "cli/mpirun_launch.h"

#include <unistd.h>

#include <algorithm>
#include <iostream>

#include <nlohmann/json.hpp>

#include "auth/run_secret.h"
#include "binding/cpu_topology.h"
#include "cli/timeline_finish.h"
#include "config/data_dirs.h"
#include "config/launch_config.h"
#include "exec/output_router.h"
#include "exec/program_lookup.h"
#include "exec/supervisor.h"
#include "hvd/env_keys.h"
#include "hvd/error.h"
#include "local/host_spec.h"
#include "local/mpirun_command.h"
#include "net/socket.h"
#include "slurm/srun_command.h"

namespace hvd::launcher::cli {
namespace {

// hvdrun's own binding policy in mpirun's words. Only an explicit core or numa binds: hvdrun's
// "auto" picks cores per rank itself, which mpirun's mapper would do differently, so under
// mpirun it means no binding, as horovodrun's MPI mode (-bind-to none) does.
std::string mpirun_binding(binding::BindPolicy policy) {
  if (policy == binding::BindPolicy::kCore) return "core";
  if (policy == binding::BindPolicy::kNuma) return "numa";
  return "none";
}

// The variables every rank gets: the tunables, the rendezvous for torch, and the defaults
// hvdrun sets for any run (each only when the user has not set it).
EnvMap run_env(const config::LaunchConfig& cfg, int cores, const EnvMap& env) {
  EnvMap out = config::tunables_env(cfg.settings.tunables);
  out[env::kTorchMasterAddr] = "127.0.0.1";
  out[env::kTorchMasterPort] = std::to_string(net::pick_free_port("127.0.0.1"));
  if (env.count(env::kOmpNumThreads) == 0) {
    out[env::kOmpNumThreads] = std::to_string(std::max(1, cores / cfg.num_proc));
  }
  if (env.count(env::kPythonUnbuffered) == 0) out[env::kPythonUnbuffered] = "1";
  const auto python_dirs = config::python_dirs(cfg.settings.launcher.horovod_compat);
  if (!python_dirs.empty()) {
    out[env::kPythonPath] =
        config::prepend_python_path(python_dirs, env_string(env, env::kPythonPath, ""));
  }
  return out;
}

std::string find_mpirun(const EnvMap& env) {
  if (std::optional<std::string> path = exec::find_in_path("mpirun", env)) return *path;
  throw LaunchError(
      "--mpi: mpirun was not found in PATH; install Open MPI (Debian: apt-get install "
      "openmpi-bin), or run without --mpi to let hvdrun start the ranks itself");
}

// Runs mpirun as hvdrun's one child. mpirun kills the other ranks when one fails and exits with
// a failed rank's code; hvdrun keeps the signal forwarding and turns --tag-output's
// "[1,R]<stdout>:" into its own tags (exec/mpirun_tags.h).
//
// The run's secret goes into mpirun's environment and on its command line by name only
// (-x HVD_RUN_SECRET exports the value mpirun has): argv is visible to every user in ps.
int supervise_mpirun(const local::MpirunRequest& request, const std::vector<std::string>& argv,
                     const config::LaunchConfig& cfg, const EnvMap& env) {
  exec::block_forwarded_signals();
  exec::Guard guard = exec::Guard::start();  // mpirun's group dies even after kill -9 of hvdrun
  exec::Child mpirun{"mpirun", {request.mpirun, argv, {}, {}}, -1, {}};
  EnvMap full = env;
  for (const auto& [k, v] : request.env) full[k] = v;
  full[env::kRunSecret] = auth::RunSecret::generate().hex();
  for (const auto& [k, v] : full) mpirun.request.env.push_back(k + "=" + v);
  exec::OutputRouter router(cfg.num_proc, cfg.settings.launcher.tag_output, cfg.output_dir,
                            STDOUT_FILENO, STDERR_FILENO);
  router.set_label_style(exec::OutputRouter::LabelStyle::kOpenMpi);
  std::vector<exec::Child> children;
  children.push_back(std::move(mpirun));
  exec::Supervisor supervisor(std::move(children), router,
                              std::chrono::seconds(cfg.settings.launcher.kill_grace_seconds),
                              &guard);
  const int code = supervisor.run();
  finish_timeline(cfg.settings.tunables, cfg.num_proc);
  return code;
}

}  // namespace

int run_mpirun(const config::RunOptions& opts, const EnvMap& env) {
  if (opts.tf_config) {
    throw UsageError(
        "--tf-config cannot be used with --mpi on this machine: mpirun gives every rank the same "
        "environment, and TF_CONFIG differs per rank");
  }
  const config::LaunchConfig cfg =
      config::resolve_launch_config(opts, config::defaults_file(), local::this_machine_names());
  exec::resolve_program(cfg.command.front(), env);  // a typo fails here, not in every rank
  const int cores = static_cast<int>(binding::load_cpu_topology().cores.size());
  local::MpirunRequest request;
  request.mpirun = find_mpirun(env);
  request.num_proc = cfg.num_proc;
  request.cores = cores;
  request.as_root = geteuid() == 0;
  request.bind_to = mpirun_binding(cfg.bind_to);
  request.env = run_env(cfg, cores, env);
  request.command = cfg.command;
  std::vector<std::string> argv = local::build_mpirun_command(request);
  // The name only (see above), beside the other exported variables.
  const auto first_export = std::find(argv.begin() + 1, argv.end(), std::string("-x"));
  argv.insert(first_export == argv.end() ? argv.begin() + 1 : first_export,
              {"-x", env::kRunSecret});
  if (!cfg.dry_run) return supervise_mpirun(request, argv, cfg, env);
  const nlohmann::json plan = {{"mode", "mpirun"},
                               {"size", cfg.num_proc},
                               {"mpirun", argv},
                               {"mpirun_line", slurm::shell_join(argv)},
                               {"env", request.env},
                               {"settings", config::to_json(cfg.settings)},
                               {"settings_sources", cfg.sources}};
  std::cout << plan.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << std::endl;
  return 0;
}

}  // namespace hvd::launcher::cli
