// SPDX-License-Identifier: Apache-2.0
#include "plan/task_env.h"

#include <sstream>

#include "hvd/env_keys.h"
#include "plan/rank_env.h"
#include "plan/rank_error_file.h"
#include "slurm/srun_command.h"

namespace hvd::launcher::plan {
namespace {

int positive_int(const EnvMap& env, const char* key) {
  const std::string text = env_string(env, key, "");
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) return 0;
  return text.size() > 6 ? 0 : std::stoi(text);
}

}  // namespace

std::vector<std::string> visible_gpus(const std::string& gpu_env, const EnvMap& inherited) {
  std::vector<std::string> gpus;
  if (const auto it = inherited.find(gpu_env); it != inherited.end()) {
    std::stringstream tokens(it->second);
    for (std::string t; std::getline(tokens, t, ',');) {
      if (!t.empty() && t != "NoDevFiles") gpus.push_back(t);
    }
    return gpus;
  }
  const int count = positive_int(inherited, "SLURM_GPUS_ON_NODE");
  for (int i = 0; i < count; ++i) gpus.push_back(std::to_string(i));
  return gpus;
}

EnvMap task_env(const slurm::StepTask& t, const TaskEnvOptions& o, const EnvMap& inherited) {
  RankIdentity id;
  id.rank = t.rank;
  id.size = t.size;
  id.local_rank = t.local_rank;
  id.local_size = t.local_size;
  id.node_rank = t.node_rank;
  id.num_nodes = t.num_nodes;
  if (static_cast<size_t>(t.node_rank) < t.step_nodes.size()) {
    id.host = t.step_nodes[static_cast<size_t>(t.node_rank)];
  }
  RunSetup run;
  // Never localhost on a multi-node job: the step's first node, which every task agrees on.
  run.master_addr = !o.master_addr.empty()
                        ? o.master_addr
                        : (t.step_nodes.empty() ? std::string("127.0.0.1") : t.step_nodes[0]);
  run.master_port = o.master_port > 0 ? o.master_port : slurm::master_port_for(t.job_id, o.master_port_base);
  run.tf_workers = o.tf_workers;
  run.python_dirs = o.python_dirs;
  // srun pins the task (the profile's --cpu-bind), not hvdrun.
  CpuShare cpus;
  cpus.cpus_per_task = positive_int(inherited, "SLURM_CPUS_PER_TASK");
  cpus.node_cpus = positive_int(inherited, "SLURM_CPUS_ON_NODE");
  GpuChoice gpu;
  gpu.variable = o.gpu_env;
  const std::vector<std::string> gpus = visible_gpus(o.gpu_env, inherited);
  if (!gpus.empty()) {
    const size_t slot = static_cast<size_t>(t.local_rank) % gpus.size();
    const size_t index = o.gpu_order.size() == gpus.size()
                             ? static_cast<size_t>(o.gpu_order[slot]) % gpus.size()
                             : slot;
    gpu.value = gpus[index];
  }
  RankExtras extras;
  extras.checkpoint_file = o.checkpoint_file;
  // Only when the task has none of its own: the lookup probes routes.
  if (o.interface_towards && inherited.count(env::kGlooSocketIfname) == 0) {
    extras.socket_interface = o.interface_towards(run.master_addr).value_or("");
  }
  // How often Slurm requeued the job (SLURM_RESTART_COUNT is absent in its first run).
  extras.requeue_count = env_string(inherited, "SLURM_RESTART_COUNT", "0");
  // Instead of the user's TORCHELASTIC_ERROR_FILE, which is hvdrun's (exec/torchelastic_errors.h).
  extras.error_file = task_error_file(inherited, t.rank);
  return rank_env(id, run, cpus, gpu, extras, inherited);
}

}  // namespace hvd::launcher::plan
