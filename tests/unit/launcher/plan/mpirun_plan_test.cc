// SPDX-License-Identifier: Apache-2.0
// The mpirun mode's plan, and what all modes share: attach_store and the JSON's common keys.
#include "plan/mpirun_plan.h"

#include <doctest/doctest.h>

#include <algorithm>

#include "plan/local_plan.h"
#include "plan/plan_json.h"

namespace plan = hvd::launcher::plan;
namespace binding = hvd::launcher::binding;

namespace {

plan::MachineFacts four_core_box(hvd::EnvMap env = {}) {
  plan::MachineFacts facts;
  facts.hostname = "box";
  for (int i = 0; i < 4; ++i) facts.topology.cores.push_back({i, {i}, 0});
  facts.env = std::move(env);
  return facts;
}

plan::LaunchRequest config_for(int np, binding::BindPolicy bind) {
  plan::LaunchRequest c;
  c.num_proc = np;
  c.command = {"prog"};
  c.bind_to = bind;
  return c;
}

bool has(const std::vector<std::string>& argv, const std::string& word) {
  return std::find(argv.begin(), argv.end(), word) != argv.end();
}

}  // namespace

TEST_CASE("mpirun plan: one environment for all ranks, by the shared rules") {
  const plan::LaunchPlan p = plan::build_mpirun_plan(
      config_for(2, binding::BindPolicy::kAuto), four_core_box(), "/usr/bin/mpirun", 5000, true,
      "/bin/prog");
  CHECK(p.mode == plan::Mode::kMpirun);
  REQUIRE(p.starter);
  CHECK(p.ranks.empty());  // mpirun gives the ranks their identity
  CHECK_FALSE(p.hosts_store);
  const hvd::EnvMap& env = p.starter->env;
  CHECK(env.at("MASTER_ADDR") == "127.0.0.1");
  CHECK(env.at("MASTER_PORT") == "5000");
  CHECK(env.at("OMP_NUM_THREADS") == "2");  // 4 cores over 2 ranks, as unbound local ranks
  CHECK(env.at("PYTHONUNBUFFERED") == "1");
  CHECK(env.at("HOROVOD_CYCLE_TIME") == "1");
  CHECK(env.count("HOROVOD_RANK") == 0);
  const auto& argv = p.starter->argv;
  CHECK(argv.front() == "/usr/bin/mpirun");
  CHECK(has(argv, "--allow-run-as-root"));
  CHECK(has(argv, "HVD_RUN_SECRET"));  // by name; the value never appears in argv
  CHECK(has(argv, "MASTER_PORT=5000"));
  CHECK(argv.back() == "prog");
  const auto j = plan::to_json(p);
  CHECK(j.at("mode") == "mpirun");
  CHECK(j.at("size") == 2);
  CHECK(j.at("starter").at("env").at("MASTER_PORT") == "5000");
  CHECK(j.at("starter").at("line").get<std::string>().find("-x HVD_RUN_SECRET") !=
        std::string::npos);
}

TEST_CASE("mpirun plan: the user's OMP_NUM_THREADS is left alone, as in the other modes") {
  const plan::LaunchPlan p = plan::build_mpirun_plan(
      config_for(2, binding::BindPolicy::kCore), four_core_box({{"OMP_NUM_THREADS", "3"}}),
      "mpirun", 5000, false, "/bin/prog");
  CHECK(p.starter->env.count("OMP_NUM_THREADS") == 0);
  CHECK_FALSE(has(p.starter->argv, "--allow-run-as-root"));
  CHECK(has(p.starter->argv, "core"));  // --bind-to core
}

TEST_CASE("attach_store: local ranks get the store's port") {
  plan::Endpoints ep;
  ep.run_id = "run-1";
  plan::LaunchPlan p = plan::build_local_plan(config_for(2, binding::BindPolicy::kNone),
                                              four_core_box(), ep, "/bin/prog");
  CHECK(p.hosts_store);
  plan::attach_store(p, "127.0.0.1", 4321);
  for (const plan::RankPlan& r : p.ranks) {
    CHECK(r.env.at("HVD_STORE_PORT") == "4321");
    CHECK(r.env.at("HVD_STORE_ADDR") == "127.0.0.1");
    CHECK(r.env.at("HVD_RUN_ID") == "run-1");
  }
  CHECK(plan::to_json(p).at("rendezvous").at("store") == "127.0.0.1:4321");
}

TEST_CASE("attach_store: a starter's ranks get the store through its environment") {
  plan::LaunchPlan p;
  p.mode = plan::Mode::kSlurm;
  p.endpoints.run_id = "run-2";
  p.starter = plan::Starter{"srun", "/usr/bin/srun", {"srun"}, {}};
  plan::attach_store(p, "10.0.0.1", 4000);
  CHECK(p.starter->env.at("HVD_STORE_ADDR") == "10.0.0.1");
  CHECK(p.starter->env.at("HVD_STORE_PORT") == "4000");
  CHECK(p.starter->env.at("HVD_RUN_ID") == "run-2");
}

TEST_CASE("begin_attempt: local ranks get the restart count and, on a restart, a new run id") {
  plan::Endpoints ep;
  ep.run_id = "run-1";
  plan::LaunchRequest cfg = config_for(2, binding::BindPolicy::kNone);
  cfg.settings.launcher.max_restarts = 2;
  plan::LaunchPlan p = plan::build_local_plan(cfg, four_core_box(), ep, "/bin/prog");
  plan::begin_attempt(p, 0);
  for (const plan::RankPlan& r : p.ranks) {
    CHECK(r.env.at("TORCHELASTIC_RESTART_COUNT") == "0");
    CHECK(r.env.at("TORCHELASTIC_MAX_RESTARTS") == "2");
    CHECK(r.env.at("HVD_RUN_ID") == "run-1");  // the first attempt keeps the plan's
  }
  plan::LaunchPlan second = p;
  plan::begin_attempt(second, 1);
  CHECK(second.endpoints.run_id != "run-1");
  for (const plan::RankPlan& r : second.ranks) {
    CHECK(r.env.at("TORCHELASTIC_RESTART_COUNT") == "1");
    CHECK(r.env.at("HVD_RUN_ID") == second.endpoints.run_id);
  }
}

TEST_CASE("begin_attempt: srun and mpirun pass the restart count on to every rank") {
  plan::LaunchPlan p = plan::build_mpirun_plan(config_for(2, binding::BindPolicy::kAuto),
                                               four_core_box(), "mpirun", 5000, false, "/bin/prog");
  plan::begin_attempt(p, 1);
  CHECK(p.starter->env.at("TORCHELASTIC_RESTART_COUNT") == "1");
  CHECK(p.starter->env.at("TORCHELASTIC_MAX_RESTARTS") == "0");
  // mpirun exports them by name, like the secret, so that a restart needs no new command line.
  CHECK(has(p.starter->argv, "TORCHELASTIC_RESTART_COUNT"));
  CHECK(has(p.starter->argv, "TORCHELASTIC_MAX_RESTARTS"));
}
