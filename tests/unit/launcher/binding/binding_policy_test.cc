// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include <sched.h>

#include <set>
#include <string>
#include <vector>

#include "binding/binding_policy.h"
#include "binding/cpu_list.h"
#include "hvd/error.h"

namespace binding = hvd::launcher::binding;
using binding::BindingPlan;
using binding::BindPolicy;
using binding::CpuTopology;
using binding::Gpu;

namespace {

// `domains` NUMA domains of `cores_per_domain` cores with `smt` threads each.
struct Shape {
  int domains;
  int cores_per_domain;
  int smt;
};

// PUs numbered as Linux does: the first thread of every core, then the second, ... (core k of
// C has PUs k, k + C, ...).
CpuTopology make_topology(const Shape& shape) {
  CpuTopology topo;
  topo.numa_count = shape.domains;
  const int core_count = shape.domains * shape.cores_per_domain;
  for (int k = 0; k < core_count; ++k) {
    binding::Core core{k, {}, k / shape.cores_per_domain};
    for (int t = 0; t < shape.smt; ++t) core.pus.push_back(k + t * core_count);
    topo.cores.push_back(core);
  }
  return topo;
}

CpuTopology two_socket() { return make_topology({2, 4, 2}); }   // 2 x 4 cores, SMT2, PUs 0-15
CpuTopology perlmutter() { return make_topology({4, 16, 2}); }  // EPYC 7763 NPS4, PUs 0-127
CpuTopology small_vm() { return make_topology({1, 2, 1}); }     // like this build machine

// Perlmutter's GPU node: GPU i sits next to NUMA domain 3 - i.
std::vector<Gpu> perlmutter_gpus() { return {{"0", 3}, {"1", 2}, {"2", 1}, {"3", 0}}; }

std::vector<std::string> cpu_lists(const BindingPlan& plan) {
  std::vector<std::string> out;
  for (const binding::RankBinding& rank : plan.ranks) {
    out.push_back(binding::format_cpu_list(rank.cpus));
  }
  return out;
}

std::vector<int> domains(const BindingPlan& plan) {
  std::vector<int> out;
  for (const binding::RankBinding& rank : plan.ranks) out.push_back(rank.numa);
  return out;
}

std::vector<std::string> gpus_of(const BindingPlan& plan) {
  std::vector<std::string> out;
  for (const binding::RankBinding& rank : plan.ranks) out.push_back(rank.gpu);
  return out;
}

bool has_note(const BindingPlan& plan, const std::string& text) {
  for (const std::string& note : plan.notes) {
    if (note.find(text) != std::string::npos) return true;
  }
  return false;
}

// No CPU is given to two ranks.
bool disjoint(const BindingPlan& plan) {
  std::set<int> seen;
  for (const binding::RankBinding& rank : plan.ranks) {
    for (int cpu : rank.cpus) {
      if (!seen.insert(cpu).second) return false;
    }
  }
  return true;
}

}  // namespace

TEST_CASE("binding_policy: --bind-to spellings") {
  for (BindPolicy policy :
       {BindPolicy::kAuto, BindPolicy::kCore, BindPolicy::kNuma, BindPolicy::kNone}) {
    CHECK(binding::parse_bind_policy(binding::to_string(policy)) == policy);
  }
  CHECK(binding::to_string(BindPolicy::kCore) == "core");
  CHECK_THROWS_WITH_AS(binding::parse_bind_policy("socket"),
                       "--bind-to: 'socket' is not one of core, numa, none, auto", hvd::UsageError);
  CHECK_THROWS_AS(binding::parse_bind_policy("Core"), hvd::UsageError);
  CHECK_THROWS_AS(binding::parse_bind_policy(""), hvd::UsageError);
}

TEST_CASE("binding_policy: core blocks on a 2-socket SMT2 machine") {
  const CpuTopology topo = two_socket();
  const BindingPlan two = binding::plan_binding(topo, {}, 2, BindPolicy::kCore);
  CHECK(two.policy == BindPolicy::kCore);
  CHECK(cpu_lists(two) == std::vector<std::string>{"0-3,8-11", "4-7,12-15"});
  CHECK(domains(two) == std::vector<int>{0, 1});
  CHECK(!has_note(two, "unused"));

  const BindingPlan four = binding::plan_binding(topo, {}, 4, BindPolicy::kCore);
  CHECK(cpu_lists(four) ==
        std::vector<std::string>{"0-1,8-9", "2-3,10-11", "4-5,12-13", "6-7,14-15"});

  const BindingPlan three = binding::plan_binding(topo, {}, 3, BindPolicy::kCore);
  CHECK(cpu_lists(three) == std::vector<std::string>{"0-1,8-9", "2-3,10-11", "4-5,12-13"});
  CHECK(domains(three) == std::vector<int>{0, 0, 1});
  CHECK(has_note(three, "2 of 8 cores unused"));

  const BindingPlan one = binding::plan_binding(topo, {}, 1, BindPolicy::kCore);
  CHECK(cpu_lists(one) == std::vector<std::string>{"0-15"});
  CHECK(domains(one) == std::vector<int>{-1});  // spans both sockets

  for (int local_size = 1; local_size <= 8; ++local_size) {
    CAPTURE(local_size);
    const BindingPlan plan = binding::plan_binding(topo, {}, local_size, BindPolicy::kCore);
    CHECK(plan.ranks.size() == static_cast<size_t>(local_size));
    CHECK(disjoint(plan));
    for (const binding::RankBinding& rank : plan.ranks) {
      CHECK(rank.cpus.size() == static_cast<size_t>(2 * (8 / local_size)));
    }
  }
}

TEST_CASE("binding_policy: more ranks than cores wrap around under --bind-to core") {
  const BindingPlan plan = binding::plan_binding(small_vm(), {}, 3, BindPolicy::kCore);
  CHECK(plan.policy == BindPolicy::kCore);
  CHECK(cpu_lists(plan) == std::vector<std::string>{"0", "1", "0"});
  CHECK(has_note(plan, "oversubscribed: 3 ranks on 2 cores"));

  const BindingPlan smt = binding::plan_binding(two_socket(), {}, 10, BindPolicy::kCore);
  CHECK(cpu_lists(smt)[8] == "0,8");
  CHECK(cpu_lists(smt)[9] == "1,9");
}

TEST_CASE("binding_policy: auto binds cores unless that would oversubscribe") {
  const CpuTopology vm = small_vm();
  const BindingPlan fits = binding::plan_binding(vm, {}, 2, BindPolicy::kAuto);
  CHECK(fits.policy == BindPolicy::kCore);
  CHECK(cpu_lists(fits) == std::vector<std::string>{"0", "1"});

  const BindingPlan single = binding::plan_binding(vm, {}, 1, BindPolicy::kAuto);
  CHECK(single.policy == BindPolicy::kCore);
  CHECK(cpu_lists(single) == std::vector<std::string>{"0-1"});

  const BindingPlan crowded = binding::plan_binding(vm, {}, 4, BindPolicy::kAuto);
  CHECK(crowded.policy == BindPolicy::kNone);
  CHECK(cpu_lists(crowded) == std::vector<std::string>(4, ""));
  CHECK(has_note(crowded, "4 ranks on 2 cores"));
  CHECK(!has_note(crowded, "oversubscribed"));
}

TEST_CASE("binding_policy: none binds nothing but still hands out GPUs") {
  const BindingPlan plan =
      binding::plan_binding(perlmutter(), perlmutter_gpus(), 4, BindPolicy::kNone);
  CHECK(plan.policy == BindPolicy::kNone);
  CHECK(cpu_lists(plan) == std::vector<std::string>(4, ""));
  CHECK(domains(plan) == std::vector<int>(4, -1));
  CHECK(gpus_of(plan) == std::vector<std::string>{"0", "1", "2", "3"});
}

TEST_CASE("binding_policy: numa gives whole domains, in blocks without GPU locality") {
  const CpuTopology topo = two_socket();
  const BindingPlan two = binding::plan_binding(topo, {}, 2, BindPolicy::kNuma);
  CHECK(two.policy == BindPolicy::kNuma);
  CHECK(cpu_lists(two) == std::vector<std::string>{"0-3,8-11", "4-7,12-15"});
  CHECK(domains(two) == std::vector<int>{0, 1});
  CHECK(domains(binding::plan_binding(topo, {}, 4, BindPolicy::kNuma)) ==
        std::vector<int>{0, 0, 1, 1});
  CHECK(domains(binding::plan_binding(topo, {}, 3, BindPolicy::kNuma)) ==
        std::vector<int>{0, 0, 1});
  CHECK(domains(binding::plan_binding(topo, {}, 1, BindPolicy::kNuma)) == std::vector<int>{0});
  CHECK(domains(binding::plan_binding(perlmutter(), {}, 2, BindPolicy::kNuma)) ==
        std::vector<int>{0, 2});
}

TEST_CASE("binding_policy: Perlmutter-like node follows each GPU's NUMA domain") {
  const CpuTopology topo = perlmutter();
  const std::vector<Gpu> gpus = perlmutter_gpus();

  const BindingPlan core = binding::plan_binding(topo, gpus, 4, BindPolicy::kCore);
  CHECK(cpu_lists(core) ==
        std::vector<std::string>{"48-63,112-127", "32-47,96-111", "16-31,80-95", "0-15,64-79"});
  CHECK(domains(core) == std::vector<int>{3, 2, 1, 0});
  CHECK(gpus_of(core) == std::vector<std::string>{"0", "1", "2", "3"});
  CHECK(has_note(core, "GPU NUMA domain"));
  CHECK(!has_note(core, "share"));
  CHECK(!has_note(core, "unused"));

  SUBCASE("two ranks per GPU split their GPU's domain") {
    const BindingPlan eight = binding::plan_binding(topo, gpus, 8, BindPolicy::kCore);
    CHECK(disjoint(eight));
    CHECK(cpu_lists(eight)[0] == "48-55,112-119");
    CHECK(cpu_lists(eight)[4] == "56-63,120-127");
    CHECK(cpu_lists(eight)[3] == "0-7,64-71");
    CHECK(gpus_of(eight)[4] == "0");
    CHECK(has_note(eight, "8 ranks share 4 GPU(s)"));
  }
  SUBCASE("two ranks leave the other domains idle") {
    const BindingPlan two = binding::plan_binding(topo, gpus, 2, BindPolicy::kCore);
    CHECK(cpu_lists(two) == std::vector<std::string>{"48-63,112-127", "32-47,96-111"});
    CHECK(has_note(two, "32 of 64 cores unused"));
  }
  SUBCASE("numa uses the GPU's domain") {
    const BindingPlan numa = binding::plan_binding(topo, gpus, 4, BindPolicy::kNuma);
    CHECK(domains(numa) == std::vector<int>{3, 2, 1, 0});
    CHECK(cpu_lists(numa)[0] == "48-63,112-127");
  }
  SUBCASE("auto is core here") {
    CHECK(binding::plan_binding(topo, gpus, 4, BindPolicy::kAuto).policy == BindPolicy::kCore);
  }
}

TEST_CASE("binding_policy: GPU locality that cannot be followed") {
  SUBCASE("one unknown domain: plain blocks for everyone") {
    const std::vector<Gpu> gpus = {{"0", 3}, {"1", 2}, {"2", -1}, {"3", 0}};
    const BindingPlan plan = binding::plan_binding(perlmutter(), gpus, 4, BindPolicy::kCore);
    CHECK(domains(plan) == std::vector<int>{0, 1, 2, 3});
    CHECK(!has_note(plan, "GPU NUMA"));
  }
  SUBCASE("more ranks in a domain than it has cores: plain blocks, with a note") {
    const std::vector<Gpu> gpus = {{"0", 0}, {"1", 0}, {"2", 0}};
    const BindingPlan plan =
        binding::plan_binding(make_topology({2, 2, 1}), gpus, 3, BindPolicy::kCore);
    CHECK(cpu_lists(plan) == std::vector<std::string>{"0", "1", "2"});
    CHECK(has_note(plan, "GPU NUMA locality ignored"));
    CHECK(has_note(plan, "1 of 4 cores unused"));
  }
  SUBCASE("all GPUs on one socket: ranks share that socket's cores") {
    const std::vector<Gpu> gpus = {{"0", 0}, {"1", 0}};
    const BindingPlan plan = binding::plan_binding(two_socket(), gpus, 2, BindPolicy::kCore);
    CHECK(cpu_lists(plan) == std::vector<std::string>{"0-1,8-9", "2-3,10-11"});
    CHECK(has_note(plan, "4 of 8 cores unused"));
  }
  SUBCASE("a domain number outside the topology counts as unknown") {
    const std::vector<Gpu> gpus = {{"0", 7}};
    const BindingPlan plan = binding::plan_binding(two_socket(), gpus, 2, BindPolicy::kNuma);
    CHECK(domains(plan) == std::vector<int>{0, 1});
  }
}

TEST_CASE("binding_policy: GPU assignment and notes") {
  const CpuTopology topo = two_socket();
  const BindingPlan none = binding::plan_binding(topo, {}, 2, BindPolicy::kCore);
  CHECK(gpus_of(none) == std::vector<std::string>{"", ""});
  CHECK(none.notes == std::vector<std::string>{"no GPUs visible: CUDA_VISIBLE_DEVICES not set"});

  const std::vector<Gpu> two = {{"GPU-aa", -1}, {"GPU-bb", -1}};
  const BindingPlan shared = binding::plan_binding(topo, two, 4, BindPolicy::kCore);
  CHECK(gpus_of(shared) == std::vector<std::string>{"GPU-aa", "GPU-bb", "GPU-aa", "GPU-bb"});
  CHECK(has_note(shared, "4 ranks share 2 GPU(s)"));

  const BindingPlan exact = binding::plan_binding(topo, two, 2, BindPolicy::kCore);
  CHECK(gpus_of(exact) == std::vector<std::string>{"GPU-aa", "GPU-bb"});
  CHECK(exact.notes.empty());

  const BindingPlan fewer = binding::plan_binding(topo, two, 1, BindPolicy::kNone);
  CHECK(gpus_of(fewer) == std::vector<std::string>{"GPU-aa"});
}

TEST_CASE("binding_policy: caller bugs are InternalErrors") {
  CHECK_THROWS_AS(binding::plan_binding(small_vm(), {}, 0, BindPolicy::kCore), hvd::InternalError);
  CHECK_THROWS_AS(binding::plan_binding(CpuTopology{}, {}, 1, BindPolicy::kNone),
                  hvd::InternalError);
  CpuTopology bad_domain = small_vm();
  bad_domain.cores[1].numa = 1;  // numa_count is 1
  CHECK_THROWS_AS(binding::plan_binding(bad_domain, {}, 1, BindPolicy::kCore), hvd::InternalError);
  CpuTopology empty_domain = small_vm();
  empty_domain.numa_count = 2;
  CHECK_THROWS_AS(binding::plan_binding(empty_domain, {}, 1, BindPolicy::kNuma),
                  hvd::InternalError);
  CpuTopology shared_pu = small_vm();
  shared_pu.cores[1].pus = {0};
  CHECK_THROWS_AS(binding::plan_binding(shared_pu, {}, 1, BindPolicy::kCore), hvd::InternalError);
}

TEST_CASE("binding_policy: this machine's topology, from hwloc") {
  const CpuTopology topo = binding::load_cpu_topology();
  REQUIRE(!topo.cores.empty());
  REQUIRE(topo.numa_count >= 1);
  cpu_set_t affinity;
  CPU_ZERO(&affinity);
  REQUIRE(sched_getaffinity(0, sizeof(affinity), &affinity) == 0);
  for (const binding::Core& core : topo.cores) {
    CAPTURE(core.index);
    CHECK(!core.pus.empty());
    CHECK(core.numa >= 0);
    CHECK(core.numa < topo.numa_count);
    for (int pu : core.pus) CHECK(CPU_ISSET(pu, &affinity));
  }
  const int local_size = static_cast<int>(topo.cores.size());
  const BindingPlan plan = binding::plan_binding(topo, {}, local_size, BindPolicy::kAuto);
  CHECK(plan.policy == BindPolicy::kCore);
  CHECK(disjoint(plan));
  for (const binding::RankBinding& rank : plan.ranks) CHECK(rank.cpus.size() >= 1);
}
