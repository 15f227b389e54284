// SPDX-License-Identifier: Apache-2.0
#include "binding/binding_policy.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <set>

#include "hvd/error.h"

namespace hvd::launcher::binding {
namespace {

// Cores (indices into CpuTopology::cores) shared out among some ranks.
struct CoreGroup {
  std::vector<size_t> cores;
  std::vector<size_t> ranks;
};

void check_topology(const CpuTopology& topo) {
  HVD_CHECK(!topo.cores.empty(), "empty CPU topology");
  HVD_CHECK(topo.numa_count >= 1, "numa_count is ", topo.numa_count);
  std::set<int> pus;
  std::vector<bool> domain_used(static_cast<size_t>(topo.numa_count), false);
  for (const Core& core : topo.cores) {
    HVD_CHECK(!core.pus.empty(), "core ", core.index, " has no PUs");
    HVD_CHECK(core.numa >= 0 && core.numa < topo.numa_count, "core ", core.index, " in domain ",
              core.numa, " of ", topo.numa_count);
    domain_used[static_cast<size_t>(core.numa)] = true;
    for (int pu : core.pus) HVD_CHECK(pus.insert(pu).second, "PU ", pu, " is in two cores");
  }
  for (size_t d = 0; d < domain_used.size(); ++d) {
    HVD_CHECK(domain_used[d], "NUMA domain ", d, " has no cores");
  }
}

bool known_domain(const CpuTopology& topo, int numa) { return numa >= 0 && numa < topo.numa_count; }

void assign_gpus(const std::vector<Gpu>& gpus, BindingPlan& plan) {
  if (gpus.empty()) {
    plan.notes.push_back("no GPUs visible: CUDA_VISIBLE_DEVICES not set");
    return;
  }
  for (size_t i = 0; i < plan.ranks.size(); ++i) plan.ranks[i].gpu = gpus[i % gpus.size()].id;
  if (plan.ranks.size() > gpus.size()) {
    plan.notes.push_back(str_cat(plan.ranks.size(), " ranks share ", gpus.size(),
                                 " GPU(s): local rank i gets GPU i % ", gpus.size()));
  }
}

// Gives `rank` all PUs of `cores` and records their domain if they share one.
void bind_to_cores(const CpuTopology& topo, const std::vector<size_t>& cores, RankBinding& rank) {
  rank.cpus.clear();
  rank.numa = topo.cores[cores.front()].numa;
  for (size_t c : cores) {
    const Core& core = topo.cores[c];
    rank.cpus.insert(rank.cpus.end(), core.pus.begin(), core.pus.end());
    if (core.numa != rank.numa) rank.numa = -1;
  }
  std::sort(rank.cpus.begin(), rank.cpus.end());
}

// One group per domain holding the ranks whose GPU is there, when every rank's GPU has a known
// domain; otherwise empty (no locality to follow).
std::vector<CoreGroup> groups_by_gpu_domain(const CpuTopology& topo, const std::vector<Gpu>& gpus,
                                            size_t local_size) {
  if (gpus.empty()) return {};
  std::vector<CoreGroup> by_domain(static_cast<size_t>(topo.numa_count));
  for (size_t r = 0; r < local_size; ++r) {
    const int numa = gpus[r % gpus.size()].numa;
    if (!known_domain(topo, numa)) return {};
    by_domain[static_cast<size_t>(numa)].ranks.push_back(r);
  }
  for (size_t c = 0; c < topo.cores.size(); ++c) {
    by_domain[static_cast<size_t>(topo.cores[c].numa)].cores.push_back(c);
  }
  std::vector<CoreGroup> groups;
  for (CoreGroup& group : by_domain) {
    if (!group.ranks.empty()) groups.push_back(std::move(group));
  }
  return groups;
}

// Cores each rank of every group can get, the same for all: the tightest group decides.
size_t block_size(const std::vector<CoreGroup>& groups) {
  size_t per = SIZE_MAX;
  for (const CoreGroup& g : groups) per = std::min(per, g.cores.size() / g.ranks.size());
  return per;
}

void plan_core_wraparound(const CpuTopology& topo, BindingPlan& plan) {
  const size_t core_count = topo.cores.size();
  for (size_t r = 0; r < plan.ranks.size(); ++r) {
    bind_to_cores(topo, {r % core_count}, plan.ranks[r]);
  }
  plan.notes.push_back(
      str_cat("oversubscribed: ", plan.ranks.size(), " ranks on ", core_count, " cores"));
}

void plan_core_blocks(const CpuTopology& topo, const std::vector<Gpu>& gpus, BindingPlan& plan) {
  const size_t local_size = plan.ranks.size();
  std::vector<CoreGroup> groups = groups_by_gpu_domain(topo, gpus, local_size);
  if (!groups.empty() && block_size(groups) == 0) {
    plan.notes.push_back("GPU NUMA locality ignored: a NUMA domain has more ranks than cores");
    groups.clear();
  } else if (!groups.empty()) {
    plan.notes.push_back("core blocks follow each rank's GPU NUMA domain");
  }
  if (groups.empty()) {
    CoreGroup all;
    for (size_t c = 0; c < topo.cores.size(); ++c) all.cores.push_back(c);
    for (size_t r = 0; r < local_size; ++r) all.ranks.push_back(r);
    groups.push_back(std::move(all));
  }
  const size_t per = block_size(groups);
  for (const CoreGroup& g : groups) {
    for (size_t k = 0; k < g.ranks.size(); ++k) {
      const auto first = g.cores.begin() + static_cast<std::ptrdiff_t>(k * per);
      bind_to_cores(topo, std::vector<size_t>(first, first + static_cast<std::ptrdiff_t>(per)),
                    plan.ranks[g.ranks[k]]);
    }
  }
  const size_t unused = topo.cores.size() - per * local_size;
  if (unused > 0) {
    plan.notes.push_back(str_cat(unused, " of ", topo.cores.size(), " cores unused: ", local_size,
                                 " ranks get ", per, " core(s) each"));
  }
}

void plan_numa(const CpuTopology& topo, const std::vector<Gpu>& gpus, BindingPlan& plan) {
  const int64_t local_size = static_cast<int64_t>(plan.ranks.size());
  for (int64_t r = 0; r < local_size; ++r) {
    RankBinding& rank = plan.ranks[static_cast<size_t>(r)];
    const int gpu_numa = gpus.empty() ? -1 : gpus[static_cast<size_t>(r) % gpus.size()].numa;
    const int numa = known_domain(topo, gpu_numa)
                         ? gpu_numa
                         : static_cast<int>(r * topo.numa_count / local_size);
    for (const Core& core : topo.cores) {
      if (core.numa == numa) rank.cpus.insert(rank.cpus.end(), core.pus.begin(), core.pus.end());
    }
    std::sort(rank.cpus.begin(), rank.cpus.end());
    rank.numa = numa;
  }
}

BindPolicy resolve_auto(size_t core_count, BindingPlan& plan) {
  if (plan.ranks.size() <= core_count) return BindPolicy::kCore;
  plan.notes.push_back(str_cat("--bind-to auto: not binding CPUs, ", plan.ranks.size(),
                               " ranks on ", core_count,
                               " cores (binding would put several ranks on one core)"));
  return BindPolicy::kNone;
}

}  // namespace

BindPolicy parse_bind_policy(std::string_view text) {
  for (BindPolicy policy :
       {BindPolicy::kCore, BindPolicy::kNuma, BindPolicy::kNone, BindPolicy::kAuto}) {
    if (text == to_string(policy)) return policy;
  }
  throw UsageError(str_cat("--bind-to: '", text, "' is not one of core, numa, none, auto"));
}

std::string_view to_string(BindPolicy policy) {
  switch (policy) {
    case BindPolicy::kAuto:
      return "auto";
    case BindPolicy::kCore:
      return "core";
    case BindPolicy::kNuma:
      return "numa";
    case BindPolicy::kNone:
      return "none";
  }
  HVD_CHECK(false, "BindPolicy value ", static_cast<int>(policy));
}

BindingPlan plan_binding(const CpuTopology& topo, const std::vector<Gpu>& gpus, int local_size,
                         BindPolicy requested) {
  HVD_CHECK(local_size >= 1, "local_size is ", local_size);
  check_topology(topo);
  BindingPlan plan;
  plan.ranks.resize(static_cast<size_t>(local_size));
  plan.policy = requested == BindPolicy::kAuto ? resolve_auto(topo.cores.size(), plan) : requested;
  if (plan.policy == BindPolicy::kCore) {
    if (plan.ranks.size() > topo.cores.size()) {
      plan_core_wraparound(topo, plan);
    } else {
      plan_core_blocks(topo, gpus, plan);
    }
  } else if (plan.policy == BindPolicy::kNuma) {
    plan_numa(topo, gpus, plan);
  }
  assign_gpus(gpus, plan);
  return plan;
}

}  // namespace hvd::launcher::binding
