// SPDX-License-Identifier: Apache-2.0
#pragma once
// Which GPUs this node offers the ranks, and which NUMA domain each sits next to.
// find_gpus() reads only the environment map and a directory (no driver, no hwloc), so it is
// cheap and testable; fill_gpu_numa() asks hwloc for PCI locality and runs only when GPUs exist.

#include <map>
#include <string>
#include <vector>

#include "binding/cpu_topology.h"

namespace hvd::launcher::binding {

using EnvMap = std::map<std::string, std::string>;

/// One GPU a rank can be given.
struct Gpu {
  std::string id;  ///< The token to put in the rank's CUDA_VISIBLE_DEVICES ("2", "GPU-<uuid>").
  int numa = -1;   ///< NUMA domain as numbered in CpuTopology; -1 = unknown.
};

/// The GPUs visible to the ranks, in the order ranks are given them. If `env` sets
/// CUDA_VISIBLE_DEVICES, it decides: "", "-1" and "NoDevFiles" (Slurm's "none") mean no GPUs;
/// otherwise its comma-separated tokens (spaces trimmed, empty ones dropped) are the GPUs, in
/// order, even if unknown to us (UUIDs, MIG ids). Unset, it counts the entries of `dev_dir` named
/// "nvidia<digits>" (not nvidiactl, nvidia-uvm, nvidia-caps) that are character devices or
/// regular files, and returns ids "0".."count-1". Regular files are accepted so tests can stand a
/// temp dir in for /dev; /dev never has a regular file of that name. Every numa is -1.
/// An unreadable `dev_dir` means no GPUs; never throws for a missing one.
std::vector<Gpu> find_gpus(const EnvMap& env, const std::string& dev_dir = "/dev");

/// Sets `numa` for GPUs whose id is a number indexing the NVIDIA PCI display/3D controllers
/// (vendor 0x10de, class 0x0300 or 0x0302) in PCI bus-id order; the launcher sets
/// CUDA_DEVICE_ORDER=PCI_BUS_ID so CUDA numbers them the same way. Leaves -1 for other ids, ids
/// out of range and GPUs whose PCI locality spans several domains. Does nothing for an empty
/// list; otherwise loads hwloc with PCI devices (tens of ms) and load_cpu_topology().
/// Caveat: under a cgroup that hides some GPUs but a CUDA_VISIBLE_DEVICES relative to the visible
/// ones, numeric ids do not index the full PCI list, and the domains can be wrong.
/// Throws InternalError if hwloc fails.
void fill_gpu_numa(std::vector<Gpu>& gpus);

/// The domain of `topo` that holds every CPU of `cpus` found in `topo` (CPUs it lacks are
/// ignored); -1 if none of them is in `topo` or they span domains. fill_gpu_numa() maps a GPU's
/// PCI locality cpuset through this, so GPU and core domains share one numbering.
int numa_domain_of(const CpuTopology& topo, const std::vector<int>& cpus);

}  // namespace hvd::launcher::binding
