// SPDX-License-Identifier: Apache-2.0
#pragma once
// The CPUs this process may use, as cores grouped into NUMA domains. Plain data, so that
// plan_binding() is pure and tests can build any machine by hand; load_cpu_topology() fills it
// from hwloc on the real machine.

#include <vector>

namespace hvd::launcher::binding {

/// One physical core that this process may run on.
struct Core {
  int index = 0;         ///< hwloc logical index of the core ("Core L#index" in lstopo).
  std::vector<int> pus;  ///< OS indices of its usable logical CPUs (SMT threads), ascending.
  int numa = 0;          ///< Its NUMA domain, 0..CpuTopology::numa_count-1.
};

/// Usable cores in topology order, so that neighbouring cores share caches and domains.
/// Invariants (plan_binding() checks them): every core has at least one PU, no PU is in two
/// cores, and each domain 0..numa_count-1 holds at least one core. Domains are numbered compactly,
/// in hwloc order, over the NUMA nodes that hold usable cores: CPU-less NUMA nodes (HBM, CXL or
/// GPU memory) and nodes outside our cpuset are not domains.
struct CpuTopology {
  std::vector<Core> cores;
  int numa_count = 1;
};

/// Loads this machine's cores and NUMA domains with hwloc, without I/O devices or caches (a few
/// ms: it is on the launch path). A core is kept when at least one of its PUs is both in hwloc's
/// allowed cpuset (the cgroup cpuset) and in the process's CPU affinity (taskset, srun
/// --cpu-bind), and it keeps only those PUs. Where the affinity cannot be read (an XML topology)
/// the allowed cpuset alone decides. Throws InternalError if hwloc fails or finds no usable core.
CpuTopology load_cpu_topology();

}  // namespace hvd::launcher::binding
