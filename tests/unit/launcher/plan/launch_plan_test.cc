// SPDX-License-Identifier: Apache-2.0
#include "plan/local_plan.h"

#include <doctest/doctest.h>

#include "plan/plan_json.h"

namespace plan = hvd::launcher::plan;
namespace binding = hvd::launcher::binding;

namespace {

// 4 cores, one PU each, one NUMA domain.
binding::CpuTopology four_cores() {
  binding::CpuTopology t;
  for (int i = 0; i < 4; ++i) t.cores.push_back({i, {i}, 0});
  return t;
}

plan::LaunchRequest config_for(int np, binding::BindPolicy bind) {
  plan::LaunchRequest c;
  c.num_proc = np;
  c.command = {"prog", "--flag"};
  c.bind_to = bind;
  return c;
}

plan::Endpoints endpoints() {
  plan::Endpoints ep;
  ep.store_port = 4000;
  ep.master_port = 4001;
  ep.run_id = "run-1";
  return ep;
}

}  // namespace

TEST_CASE("launch_plan: identity, rendezvous and tunables for every rank") {
  plan::MachineFacts facts{"box", four_cores(), {}, {}, {}};
  const plan::LaunchPlan p = plan::build_local_plan(config_for(2, binding::BindPolicy::kCore),
                                                    facts, endpoints(), "/bin/prog");
  REQUIRE(p.ranks.size() == 2);
  const auto& env1 = p.ranks[1].env;
  CHECK(env1.at("HOROVOD_RANK") == "1");
  CHECK(env1.at("RANK") == "1");
  CHECK(env1.at("LOCAL_WORLD_SIZE") == "2");
  CHECK(env1.at("HOROVOD_HOSTNAME") == "box");
  CHECK(env1.at("MASTER_PORT") == "4001");
  CHECK(env1.at("HVD_STORE_PORT") == "4000");
  CHECK(env1.at("HVD_RUN_ID") == "run-1");
  CHECK(env1.at("HOROVOD_CACHE_CAPACITY") == "1024");
  CHECK(env1.at("PYTHONUNBUFFERED") == "1");
  // Bound to 2 of the 4 cores: OMP_NUM_THREADS follows the binding.
  CHECK(env1.at("HVD_CPU_LIST") == "2-3");
  CHECK(env1.at("OMP_NUM_THREADS") == "2");
  CHECK(env1.count("CUDA_VISIBLE_DEVICES") == 0);
}

// hvdrun creates the first rank's HVD_CHECKPOINT_FILE on a notice: every local rank must poll
// that one file, whose name ends in random bits (proc/checkpoint_file.h). It is named after the
// attempt's run id, so that the attempt's /dev/shm cleanup removes it: named after the first
// attempt's, it outlived a restarted job that got a notice (issue 23, finding 7).
TEST_CASE("launch_plan: every local rank gets the same checkpoint-notice file, one per attempt") {
  plan::MachineFacts facts{"box", four_cores(), {}, {}, {}};
  plan::LaunchPlan p = plan::build_local_plan(config_for(3, binding::BindPolicy::kNone), facts,
                                              endpoints(), "/bin/prog");
  plan::begin_attempt(p, 0);
  REQUIRE(p.ranks.size() == 3);
  const std::string file = p.ranks[0].env.at("HVD_CHECKPOINT_FILE");
  CHECK(file.rfind("/dev/shm/hvd-run-1-checkpoint-", 0) == 0);
  CHECK(p.ranks[1].env.at("HVD_CHECKPOINT_FILE") == file);
  CHECK(p.ranks[2].env.at("HVD_CHECKPOINT_FILE") == file);
  plan::LaunchPlan restart = p;
  plan::begin_attempt(restart, 1);
  const std::string again = restart.ranks[0].env.at("HVD_CHECKPOINT_FILE");
  CHECK(again.rfind("/dev/shm/hvd-" + restart.endpoints.run_id + "-checkpoint-", 0) == 0);
  CHECK(again != file);
  CHECK(restart.ranks[2].env.at("HVD_CHECKPOINT_FILE") == again);
}

TEST_CASE("launch_plan: variables the user set are left alone") {
  plan::MachineFacts facts{"box", four_cores(), {{"0", -1}, {"1", -1}},
                           {{"OMP_NUM_THREADS", "3"}, {"PYTHONUNBUFFERED", "0"}}, {}};
  const plan::LaunchPlan p = plan::build_local_plan(config_for(2, binding::BindPolicy::kNone),
                                                    facts, endpoints(), "/bin/prog");
  CHECK(p.ranks[0].env.count("OMP_NUM_THREADS") == 0);
  CHECK(p.ranks[0].env.count("PYTHONUNBUFFERED") == 0);
  CHECK(p.ranks[0].env.count("HVD_CPU_LIST") == 0);
  CHECK(p.ranks[1].env.at("CUDA_VISIBLE_DEVICES") == "1");
  CHECK(p.ranks[1].env.at("CUDA_DEVICE_ORDER") == "PCI_BUS_ID");  // ids came from /dev
}

TEST_CASE("launch_plan: unbound ranks share the cores for OMP_NUM_THREADS") {
  plan::MachineFacts facts{"box", four_cores(), {}, {}, {}};
  const plan::LaunchPlan p = plan::build_local_plan(config_for(8, binding::BindPolicy::kAuto),
                                                    facts, endpoints(), "/bin/prog");
  CHECK(p.binding.policy == binding::BindPolicy::kNone);  // more ranks than cores
  CHECK(p.ranks[7].env.at("OMP_NUM_THREADS") == "1");
}

TEST_CASE("launch_plan: JSON for --dry-run") {
  plan::MachineFacts facts{"box", four_cores(), {}, {}, {}};
  const auto j = plan::to_json(plan::build_local_plan(
      config_for(2, binding::BindPolicy::kCore), facts, endpoints(), "/bin/prog"));
  CHECK(j.at("size") == 2);
  CHECK(j.at("command") == nlohmann::json({"prog", "--flag"}));
  CHECK(j.at("rendezvous").at("store") == "127.0.0.1:4000");
  CHECK(j.at("ranks").at(0).at("binding").at("cpus") == "0-1");
  CHECK(j.at("ranks").at(0).at("binding").at("gpu").is_null());
  CHECK(j.at("binding").at("policy") == "core");
}
