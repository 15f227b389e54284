// SPDX-License-Identifier: Apache-2.0
#include "plan/rank_env.h"

#include <algorithm>

#include "binding/cpu_list.h"
#include "config/data_dirs.h"
#include "hvd/env_keys.h"
#include "plan/tf_config.h"

namespace hvd::launcher::plan {

int omp_threads(const CpuShare& cpus, int local_size) {
  if (cpus.bound_cores > 0) return cpus.bound_cores;
  if (cpus.cpus_per_task > 0) return cpus.cpus_per_task;
  if (cpus.node_cpus > 0) return std::max(1, cpus.node_cpus / std::max(1, local_size));
  return 0;
}

EnvMap shared_env(const RunSetup& run, const CpuShare& cpus, int local_size,
                  const EnvMap& inherited) {
  EnvMap env;
  env[env::kTorchMasterAddr] = run.master_addr;
  env[env::kTorchMasterPort] = std::to_string(run.master_port);
  if (inherited.count(env::kOmpNumThreads) == 0) {
    if (const int threads = omp_threads(cpus, local_size)) {
      env[env::kOmpNumThreads] = std::to_string(threads);
    }
  }
  if (inherited.count(env::kPythonUnbuffered) == 0) env[env::kPythonUnbuffered] = "1";
  if (!run.python_dirs.empty()) {
    env[env::kPythonPath] =
        config::prepend_python_path(run.python_dirs, env_string(inherited, env::kPythonPath, ""));
  }
  return env;
}

EnvMap rank_env(const RankIdentity& id, const RunSetup& run, const CpuShare& cpus,
                const GpuChoice& gpu, const RankExtras& extras, const EnvMap& inherited) {
  EnvMap env = shared_env(run, cpus, id.local_size, inherited);
  env[env::kRank] = env[env::kTorchRank] = std::to_string(id.rank);
  env[env::kSize] = env[env::kTorchWorldSize] = std::to_string(id.size);
  env[env::kLocalRank] = env[env::kTorchLocalRank] = std::to_string(id.local_rank);
  env[env::kLocalSize] = env[env::kTorchLocalWorldSize] = std::to_string(id.local_size);
  env[env::kCrossRank] = env[env::kTorchGroupRank] = std::to_string(id.node_rank);
  env[env::kCrossSize] = std::to_string(id.num_nodes);
  if (!id.host.empty()) env[env::kHostname] = id.host;
  if (!run.tf_workers.empty()) env[env::kTfConfig] = tf_config_json(run.tf_workers, id.rank);
  if (!gpu.value.empty()) {
    env[gpu.variable] = gpu.value;
    if (gpu.pci_order && inherited.count(env::kCudaDeviceOrder) == 0) {
      env[env::kCudaDeviceOrder] = "PCI_BUS_ID";
    }
  }
  put_extras(extras, inherited, env);
  return env;
}

void put_extras(const RankExtras& extras, const EnvMap& inherited, EnvMap& env) {
  if (!extras.store_addr.empty() && extras.store_port != 0) {
    env[env::kStoreAddr] = extras.store_addr;
    env[env::kStorePort] = std::to_string(extras.store_port);
  }
  if (!extras.run_id.empty()) env[env::kRunId] = extras.run_id;
  if (!extras.checkpoint_file.empty()) env[env::kCheckpointFile] = extras.checkpoint_file;
  if (!extras.cpus.empty()) env[env::kCpuList] = binding::format_cpu_list(extras.cpus);
  if (!extras.socket_interface.empty() && inherited.count(env::kGlooSocketIfname) == 0) {
    env[env::kGlooSocketIfname] = extras.socket_interface;
  }
  if (!extras.requeue_count.empty()) env[env::kRequeueCount] = extras.requeue_count;
  if (!extras.error_file.empty()) env[env::kTorchElasticErrorFile] = extras.error_file;
}

}  // namespace hvd::launcher::plan
