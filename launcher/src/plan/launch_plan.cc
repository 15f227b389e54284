// SPDX-License-Identifier: Apache-2.0
#include "plan/launch_plan.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <set>

#include "binding/cpu_list.h"
#include "config/data_dirs.h"
#include "hvd/env_keys.h"
#include "plan/tf_config.h"

namespace hvd::launcher::plan {
namespace {

// Cores whose PUs overlap `cpus`: OMP_NUM_THREADS counts cores, not hyperthreads.
int cores_in(const binding::CpuTopology& topo, const std::vector<int>& cpus) {
  const std::set<int> wanted(cpus.begin(), cpus.end());
  int count = 0;
  for (const binding::Core& core : topo.cores) {
    const bool hit =
        std::any_of(core.pus.begin(), core.pus.end(), [&](int pu) { return wanted.count(pu) > 0; });
    count += hit ? 1 : 0;
  }
  return count;
}

int omp_threads(const binding::CpuTopology& topo, const binding::RankBinding& b, int local_size) {
  if (!b.cpus.empty()) return std::max(1, cores_in(topo, b.cpus));
  return std::max(1, static_cast<int>(topo.cores.size()) / local_size);
}

// Every rank is on this machine, reached the way MASTER_ADDR is.
std::vector<std::string> tf_workers(const Endpoints& ep) {
  std::vector<std::string> workers;
  for (uint16_t port : ep.tf_ports) workers.push_back(ep.master_addr + ":" + std::to_string(port));
  return workers;
}

EnvMap rank_env(const config::LaunchConfig& cfg, const MachineFacts& facts, const Endpoints& ep,
                const binding::RankBinding& b, int rank) {
  const std::string size = std::to_string(cfg.num_proc);
  const std::string local_size = std::to_string(cfg.num_proc);  // one host in local mode
  EnvMap env = config::tunables_env(cfg.settings.tunables);
  env[env::kRank] = env[env::kTorchRank] = std::to_string(rank);
  env[env::kSize] = env[env::kTorchWorldSize] = size;
  env[env::kLocalRank] = env[env::kTorchLocalRank] = std::to_string(rank);
  env[env::kLocalSize] = env[env::kTorchLocalWorldSize] = local_size;
  env[env::kCrossRank] = env[env::kTorchGroupRank] = "0";
  env[env::kCrossSize] = "1";
  env[env::kHostname] = facts.hostname;
  env[env::kTorchMasterAddr] = ep.master_addr;
  env[env::kTorchMasterPort] = std::to_string(ep.master_port);
  env[env::kStoreAddr] = ep.store_addr;
  env[env::kStorePort] = std::to_string(ep.store_port);
  env[env::kRunId] = ep.run_id;
  if (!b.cpus.empty()) env[env::kCpuList] = binding::format_cpu_list(b.cpus);
  if (!ep.tf_ports.empty()) env[env::kTfConfig] = tf_config_json(tf_workers(ep), rank);
  if (facts.env.count(env::kOmpNumThreads) == 0) {
    env[env::kOmpNumThreads] = std::to_string(omp_threads(facts.topology, b, cfg.num_proc));
  }
  // Python buffers stdout when it is a pipe; without this, tagged lines arrive late.
  if (facts.env.count(env::kPythonUnbuffered) == 0) env[env::kPythonUnbuffered] = "1";
  if (!facts.python_dirs.empty()) {
    env[env::kPythonPath] =
        config::prepend_python_path(facts.python_dirs, env_string(facts.env, env::kPythonPath, ""));
  }
  if (!b.gpu.empty()) {
    env[env::kCudaVisibleDevices] = b.gpu;
    // Ids found by scanning /dev follow PCI order; make CUDA number them the same way.
    const bool scanned = facts.env.count(env::kCudaVisibleDevices) == 0;
    if (scanned && facts.env.count(env::kCudaDeviceOrder) == 0) {
      env[env::kCudaDeviceOrder] = "PCI_BUS_ID";
    }
  }
  return env;
}

}  // namespace

LaunchPlan build_local_plan(const config::LaunchConfig& cfg, const MachineFacts& facts,
                            const Endpoints& endpoints, const std::string& program) {
  LaunchPlan plan;
  plan.host = facts.hostname;
  plan.program = program;
  plan.command = cfg.command;
  plan.size = cfg.num_proc;
  plan.binding = binding::plan_binding(facts.topology, facts.gpus, cfg.num_proc, cfg.bind_to);
  plan.endpoints = endpoints;
  plan.settings = cfg.settings;
  plan.sources = cfg.sources;
  plan.output_dir = cfg.output_dir;
  for (int rank = 0; rank < cfg.num_proc; ++rank) {
    RankPlan r;
    r.rank = r.local_rank = rank;
    r.host = facts.hostname;
    r.binding = plan.binding.ranks.at(static_cast<size_t>(rank));
    r.env = rank_env(cfg, facts, endpoints, r.binding, rank);
    plan.ranks.push_back(std::move(r));
  }
  return plan;
}

std::string make_run_id() {
  std::random_device rd;
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  const auto secs = std::chrono::duration_cast<std::chrono::seconds>(now).count();
  char text[64];
  std::snprintf(text, sizeof(text), "%llx-%x-%04x", static_cast<unsigned long long>(secs),
                static_cast<unsigned>(getpid()), static_cast<unsigned>(rd() & 0xffff));
  return text;
}

}  // namespace hvd::launcher::plan
