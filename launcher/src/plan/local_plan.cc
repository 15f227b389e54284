// SPDX-License-Identifier: Apache-2.0
#include "plan/local_plan.h"

#include <algorithm>
#include <set>

#include "hvd/env_keys.h"
#include "plan/rank_env.h"

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

// Every rank is on this machine, reached the way MASTER_ADDR is.
std::vector<std::string> tf_workers(const Endpoints& ep) {
  std::vector<std::string> workers;
  for (uint16_t port : ep.tf_ports) workers.push_back(ep.master_addr + ":" + std::to_string(port));
  return workers;
}

}  // namespace

LaunchPlan build_local_plan(const LaunchRequest& request, const MachineFacts& facts,
                            const Endpoints& endpoints, const std::string& program) {
  LaunchPlan plan = plan_from_request(Mode::kLocal, request, facts.hostname, program);
  plan.binding =
      binding::plan_binding(facts.topology, facts.gpus, request.num_proc, request.bind_to);
  plan.endpoints = endpoints;
  plan.hosts_store = true;
  plan.store_bind_address = endpoints.store_addr;

  RunSetup run;
  run.master_addr = endpoints.master_addr;
  run.master_port = endpoints.master_port;
  run.tf_workers = tf_workers(endpoints);
  run.python_dirs = facts.python_dirs;
  // The checkpoint-notice file is the attempt's (begin_attempt), the store's port the
  // launch's (attach_store); --dry-run shows the port picked here.
  RankExtras extras;
  extras.store_addr = endpoints.store_addr;
  extras.store_port = endpoints.store_port;
  extras.run_id = endpoints.run_id;
  const EnvMap tunables = config::tunables_env(request.settings.tunables);
  // One host: the local size is the size, and this machine's cores are the node's.
  RankIdentity id;
  id.size = id.local_size = request.num_proc;
  id.host = facts.hostname;
  for (int rank = 0; rank < request.num_proc; ++rank) {
    RankPlan r;
    r.rank = r.local_rank = rank;
    r.host = facts.hostname;
    r.binding = plan.binding.ranks.at(static_cast<size_t>(rank));
    id.rank = id.local_rank = rank;
    CpuShare cpus;
    cpus.bound_cores = r.binding.cpus.empty() ? 0 : std::max(1, cores_in(facts.topology, r.binding.cpus));
    cpus.node_cpus = static_cast<int>(facts.topology.cores.size());
    GpuChoice gpu;
    gpu.value = r.binding.gpu;
    gpu.pci_order = facts.env.count(env::kCudaVisibleDevices) == 0;  // ids from scanning /dev
    extras.cpus = r.binding.cpus;
    r.env = tunables;
    for (auto& [key, value] : rank_env(id, run, cpus, gpu, extras, facts.env)) {
      r.env[key] = std::move(value);
    }
    plan.ranks.push_back(std::move(r));
  }
  return plan;
}

}  // namespace hvd::launcher::plan
