// SPDX-License-Identifier: Apache-2.0
#include "binding/cpu_topology.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <memory>

#include <hwloc.h>

#include "binding/hwloc_failure.h"
#include "hvd/error.h"

namespace hvd::launcher::binding {
namespace {

using TopologyPtr = std::unique_ptr<hwloc_topology, decltype(&hwloc_topology_destroy)>;
using BitmapPtr = std::unique_ptr<hwloc_bitmap_s, decltype(&hwloc_bitmap_free)>;

TopologyPtr load_without_io() {
  hwloc_topology_t raw = nullptr;
  if (hwloc_topology_init(&raw) != 0) throw_hwloc_failure("topology init");
  TopologyPtr topo(raw, &hwloc_topology_destroy);
  // Binding needs only cores, PUs and NUMA nodes. Skipping PCI and caches keeps the load at a few
  // ms, and skipping OS devices keeps hwloc's OpenCL/CUDA plugins from initialising a GPU driver.
  hwloc_topology_set_io_types_filter(raw, HWLOC_TYPE_FILTER_KEEP_NONE);
  hwloc_topology_set_cache_types_filter(raw, HWLOC_TYPE_FILTER_KEEP_NONE);
  hwloc_topology_set_icache_types_filter(raw, HWLOC_TYPE_FILTER_KEEP_NONE);
  if (hwloc_topology_load(raw) != 0) throw_hwloc_failure("topology load");
  return topo;
}

BitmapPtr new_bitmap(hwloc_const_bitmap_t copy_of = nullptr) {
  BitmapPtr set(copy_of ? hwloc_bitmap_dup(copy_of) : hwloc_bitmap_alloc(), &hwloc_bitmap_free);
  if (!set) throw_hwloc_failure("bitmap allocation");
  return set;
}

// hwloc's allowed cpuset reflects only the cgroup; the process affinity (taskset, srun
// --cpu-bind) can be narrower, and a child bound outside it would not stay where we put it.
BitmapPtr usable_cpuset(hwloc_topology_t topo) {
  BitmapPtr usable = new_bitmap(hwloc_topology_get_allowed_cpuset(topo));
  BitmapPtr bound = new_bitmap();
  if (hwloc_get_cpubind(topo, bound.get(), HWLOC_CPUBIND_PROCESS) == 0) {
    hwloc_bitmap_and(usable.get(), usable.get(), bound.get());
  }
  return usable;
}

// hwloc logical index of the smallest NUMA node whose cpuset meets `cpuset`. Smallest, because
// CPU-less nodes (KNL MCDRAM, HBM, GPU memory) carry the larger cpuset of the object they hang
// from; the DDR node next to the core is the tightest. Ties go to the first, normally DDR.
int local_numa_node(hwloc_topology_t topo, hwloc_const_cpuset_t cpuset) {
  int best = 0;  // NUMA node L#0 always exists in hwloc 2
  int best_weight = INT_MAX;
  const int count = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
  for (int i = 0; i < count; ++i) {
    const hwloc_obj_t node =
        hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, static_cast<unsigned>(i));
    if (node->cpuset == nullptr || !hwloc_bitmap_intersects(node->cpuset, cpuset)) continue;
    const int weight = hwloc_bitmap_weight(node->cpuset);
    if (weight < best_weight) {
      best = i;
      best_weight = weight;
    }
  }
  return best;
}

// Renumbers each core's hwloc NUMA index to 0..n-1 over the nodes that hold usable cores.
int compact_numa_indices(std::vector<Core>& cores) {
  std::vector<int> used;
  used.reserve(cores.size());
  for (const Core& core : cores) used.push_back(core.numa);
  std::sort(used.begin(), used.end());
  used.erase(std::unique(used.begin(), used.end()), used.end());
  for (Core& core : cores) {
    core.numa =
        static_cast<int>(std::lower_bound(used.begin(), used.end(), core.numa) - used.begin());
  }
  return std::max(1, static_cast<int>(used.size()));
}

}  // namespace

CpuTopology load_cpu_topology() {
  const TopologyPtr topo = load_without_io();
  const BitmapPtr usable = usable_cpuset(topo.get());
  // Some platforms report no cores; then each PU stands for one.
  const hwloc_obj_type_t core_type =
      hwloc_get_nbobjs_by_type(topo.get(), HWLOC_OBJ_CORE) > 0 ? HWLOC_OBJ_CORE : HWLOC_OBJ_PU;
  const int core_count = hwloc_get_nbobjs_by_type(topo.get(), core_type);
  BitmapPtr pus = new_bitmap();
  CpuTopology result;
  for (int i = 0; i < core_count; ++i) {
    const hwloc_obj_t obj = hwloc_get_obj_by_type(topo.get(), core_type, static_cast<unsigned>(i));
    if (obj->cpuset == nullptr) continue;
    hwloc_bitmap_and(pus.get(), obj->cpuset, usable.get());
    Core core;
    core.index = static_cast<int>(obj->logical_index);
    for (int pu = hwloc_bitmap_first(pus.get()); pu != -1; pu = hwloc_bitmap_next(pus.get(), pu)) {
      core.pus.push_back(pu);
    }
    if (core.pus.empty()) continue;
    core.numa = local_numa_node(topo.get(), obj->cpuset);
    result.cores.push_back(std::move(core));
  }
  if (result.cores.empty()) {
    throw InternalError("hwloc: no usable core (allowed cpuset and process affinity are disjoint)");
  }
  result.numa_count = compact_numa_indices(result.cores);
  return result;
}

}  // namespace hvd::launcher::binding
