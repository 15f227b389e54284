// SPDX-License-Identifier: Apache-2.0
#include "slurm/task_env.h"

#include <sstream>

#include "config/data_dirs.h"
#include "hvd/env_keys.h"
#include "plan/tf_config.h"
#include "slurm/srun_command.h"

namespace hvd::launcher::slurm {
namespace {

int positive_int(const EnvMap& env, const char* key) {
  const std::string text = env_string(env, key, "");
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) return 0;
  return text.size() > 6 ? 0 : std::stoi(text);
}

// OMP_NUM_THREADS: the CPUs Slurm gave each task, else the node's CPUs shared by its tasks.
int omp_threads(const StepTask& task, const EnvMap& inherited) {
  if (const int per_task = positive_int(inherited, "SLURM_CPUS_PER_TASK")) return per_task;
  const int on_node = positive_int(inherited, "SLURM_CPUS_ON_NODE");
  return on_node > 0 ? std::max(1, on_node / std::max(1, task.local_size)) : 0;
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

EnvMap task_env(const StepTask& t, const TaskEnvOptions& o, const EnvMap& inherited) {
  EnvMap env;
  env[env::kRank] = env[env::kTorchRank] = std::to_string(t.rank);
  env[env::kSize] = env[env::kTorchWorldSize] = std::to_string(t.size);
  env[env::kLocalRank] = env[env::kTorchLocalRank] = std::to_string(t.local_rank);
  env[env::kLocalSize] = env[env::kTorchLocalWorldSize] = std::to_string(t.local_size);
  env[env::kCrossRank] = env[env::kTorchGroupRank] = std::to_string(t.node_rank);
  env[env::kCrossSize] = std::to_string(t.num_nodes);
  if (static_cast<size_t>(t.node_rank) < t.step_nodes.size()) {
    env[env::kHostname] = t.step_nodes[static_cast<size_t>(t.node_rank)];
  }
  // Never localhost on a multi-node job: the step's first node, which every task agrees on.
  env[env::kTorchMasterAddr] =
      !o.master_addr.empty() ? o.master_addr
                             : (t.step_nodes.empty() ? std::string("127.0.0.1") : t.step_nodes[0]);
  env[env::kTorchMasterPort] = std::to_string(
      o.master_port > 0 ? o.master_port : master_port_for(t.job_id, o.master_port_base));

  const std::vector<std::string> gpus = visible_gpus(o.gpu_env, inherited);
  if (!gpus.empty()) {
    const size_t slot = static_cast<size_t>(t.local_rank) % gpus.size();
    const size_t index = o.gpu_order.size() == gpus.size()
                             ? static_cast<size_t>(o.gpu_order[slot]) % gpus.size()
                             : slot;
    env[o.gpu_env] = gpus[index];
  }
  if (inherited.count(env::kOmpNumThreads) == 0) {
    if (const int threads = omp_threads(t, inherited))
      env[env::kOmpNumThreads] = std::to_string(threads);
  }
  if (inherited.count(env::kPythonUnbuffered) == 0) env[env::kPythonUnbuffered] = "1";
  if (!o.python_dirs.empty()) {
    env[env::kPythonPath] =
        config::prepend_python_path(o.python_dirs, env_string(inherited, env::kPythonPath, ""));
  }
  if (!o.tf_workers.empty()) env[env::kTfConfig] = plan::tf_config_json(o.tf_workers, t.rank);
  return env;
}

}  // namespace hvd::launcher::slurm
