// SPDX-License-Identifier: Apache-2.0
#include "plan/mpirun_plan.h"

#include <algorithm>

#include "hvd/env_keys.h"
#include "local/mpirun_command.h"
#include "plan/rank_env.h"

namespace hvd::launcher::plan {
namespace {

// hvdrun's own binding policy in mpirun's words. Only an explicit core or numa binds: hvdrun's
// "auto" picks cores per rank itself, which mpirun's mapper would do differently, so under
// mpirun it means no binding, as horovodrun's MPI mode (-bind-to none) does.
std::string mpirun_binding(binding::BindPolicy policy) {
  if (policy == binding::BindPolicy::kCore) return "core";
  if (policy == binding::BindPolicy::kNuma) return "numa";
  return "none";
}

}  // namespace

LaunchPlan build_mpirun_plan(const LaunchRequest& request, const MachineFacts& facts,
                             const std::string& mpirun, uint16_t master_port,
                             bool as_root, const std::string& program) {
  LaunchPlan plan = plan_from_request(Mode::kMpirun, request, facts.hostname, program);
  plan.endpoints.master_port = master_port;

  // The variables every rank gets: the tunables, and what any rank gets alike
  // (plan/rank_env.h), with the cores shared by all ranks as when hvdrun does not bind.
  const int cores = static_cast<int>(facts.topology.cores.size());
  RunSetup run;
  run.master_port = master_port;
  run.python_dirs = facts.python_dirs;
  CpuShare cpus;
  cpus.node_cpus = cores;
  local::MpirunRequest line;
  line.mpirun = mpirun;
  line.num_proc = request.num_proc;
  line.cores = cores;
  line.as_root = as_root;
  line.bind_to = mpirun_binding(request.bind_to);
  line.env = config::tunables_env(request.settings.tunables);
  for (auto& [key, value] : shared_env(run, cpus, request.num_proc, facts.env)) {
    line.env[key] = std::move(value);
  }
  line.command = request.command;

  Starter starter;
  starter.tool = "mpirun";
  starter.path = mpirun;
  starter.argv = local::build_mpirun_command(line);
  // The run's secret goes on mpirun's command line by name only (-x HVD_RUN_SECRET exports
  // the value mpirun has, which exec::launch puts in its environment): argv is visible to
  // every user in ps. Beside the other exported variables.
  auto& argv = starter.argv;
  const auto first_export = std::find(argv.begin() + 1, argv.end(), std::string("-x"));
  argv.insert(first_export == argv.end() ? argv.begin() + 1 : first_export,
              {"-x", env::kRunSecret, "-x", env::kRestartCount, "-x", env::kMaxRestarts});
  if (!request.settings.tunables.timeline_filename.empty()) {
    // By name too: a name in ps could be planted before the ranks make their files.
    argv.insert(argv.begin() + 1, {"-x", env::kTimelineTag});
  }
  starter.env = line.env;
  plan.starter = std::move(starter);
  return plan;
}

}  // namespace hvd::launcher::plan
