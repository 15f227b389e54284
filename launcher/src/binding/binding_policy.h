// SPDX-License-Identifier: Apache-2.0
#pragma once
// Which CPUs and which GPU each local rank gets: pure logic over a CpuTopology and a GPU list,
// so every machine shape is a unit test. The child pins itself with sched_setaffinity(cpus) and
// gets CUDA_VISIBLE_DEVICES=gpu; the launch plan prints the result and its notes.
//
// Semantics of plan_binding(topo, gpus, local_size, requested), L = local_size, C = cores:
//  GPUs   Local rank i gets gpus[i % gpus.size()]. L > gpus.size() adds a note that ranks share
//         GPUs. No GPUs: every gpu is empty (CUDA_VISIBLE_DEVICES is left alone) and the note
//         "no GPUs visible: CUDA_VISIBLE_DEVICES not set".
//  none   No rank is bound: every cpus list is empty.
//  core   L <= C: ranks get disjoint blocks of `per` consecutive cores (in topology order) and
//         all PUs of those cores. Without GPU locality, blocks cut the core list in order and
//         per = C / L. When every rank's GPU has a known NUMA domain, each rank's block lies in
//         its GPU's domain: the ranks of a domain split that domain's cores, in rank order, and
//         per = min over those domains of (cores in domain / ranks in it). If a domain has more
//         ranks than cores, locality is dropped (with a note) for the plain split. Cores left
//         over are unused, with a note.
//         L > C: oversubscribed; rank i gets core i % C, note "oversubscribed: L ranks on C cores".
//  numa   Each rank gets all PUs of one domain: its GPU's when known, else domain
//         i * numa_count / L (consecutive ranks fill domains in blocks). Ranks may share domains.
//  auto   core when L <= C; otherwise none, with a note (binding would oversubscribe cores).
// RankBinding::numa is the one domain holding all of a rank's CPUs, -1 if unbound or spanning.

#include <string>
#include <string_view>
#include <vector>

#include "binding/cpu_topology.h"
#include "binding/gpu_inventory.h"

namespace hvd::launcher::binding {

enum class BindPolicy { kAuto, kCore, kNuma, kNone };

/// "core", "numa", "none" or "auto" (exact, lower case). Throws UsageError
/// "--bind-to: 'x' is not one of core, numa, none, auto".
BindPolicy parse_bind_policy(std::string_view text);

/// The --bind-to spelling of `policy`.
std::string_view to_string(BindPolicy policy);

/// What one local rank gets.
struct RankBinding {
  std::vector<int> cpus;  ///< OS CPU indices, ascending; empty = not bound.
  std::string gpu;        ///< Its CUDA_VISIBLE_DEVICES value; empty = leave it alone.
  int numa = -1;          ///< Domain holding all of cpus; -1 = unbound or spans domains.
};

/// The binding of every local rank, indexed by local rank.
struct BindingPlan {
  BindPolicy policy = BindPolicy::kNone;  ///< Effective policy, never kAuto.
  std::vector<RankBinding> ranks;
  std::vector<std::string> notes;  ///< Human-readable remarks for the launch plan.
};

/// Plans the binding of `local_size` ranks; see the semantics above. Pure. A local_size < 1 or
/// a topology breaking CpuTopology's invariants is a caller bug (HVD_CHECK -> InternalError).
BindingPlan plan_binding(const CpuTopology& topo, const std::vector<Gpu>& gpus, int local_size,
                         BindPolicy requested);

}  // namespace hvd::launcher::binding
