// SPDX-License-Identifier: Apache-2.0
#include "plan/rank_error_file.h"

#include <doctest/doctest.h>

#include "plan/local_plan.h"
#include "plan/task_env.h"

namespace plan = hvd::launcher::plan;
namespace slurm = hvd::launcher::slurm;
namespace binding = hvd::launcher::binding;

TEST_CASE("rank_error_file: one file per attempt and rank, in hvdrun's folder") {
  CHECK(plan::rank_error_file("/w/.hvdrun-errors-ab12", 0, 3) ==
        "/w/.hvdrun-errors-ab12/attempt_0.rank_3.json");
  CHECK(plan::rank_error_file("/w/d", 2, 0) == "/w/d/attempt_2.rank_0.json");
}

TEST_CASE("rank_error_file: local ranks get their own file, renamed on each restart") {
  plan::LaunchRequest c;
  c.num_proc = 2;
  c.command = {"prog"};
  c.bind_to = binding::BindPolicy::kNone;
  plan::Endpoints ep;
  ep.run_id = "run-1";
  binding::CpuTopology cores;
  for (int i = 0; i < 2; ++i) cores.cores.push_back({i, {i}, 0});
  plan::MachineFacts facts{"box", cores, {}, {{"TORCHELASTIC_ERROR_FILE", "/w/error.json"}}, {}};
  plan::LaunchPlan p = plan::build_local_plan(c, facts, ep, "/bin/prog");
  SUBCASE("without hvdrun's folder the user's variable is left as it is") {
    plan::begin_attempt(p, 0);
    CHECK(p.ranks[1].env.count("TORCHELASTIC_ERROR_FILE") == 0);
  }
  SUBCASE("with it, each rank's file") {
    p.rank_error_dir = "/w/.hvdrun-errors-x";
    plan::LaunchPlan first = p;
    plan::begin_attempt(first, 0);
    CHECK(first.ranks[0].env.at("TORCHELASTIC_ERROR_FILE") ==
          "/w/.hvdrun-errors-x/attempt_0.rank_0.json");
    CHECK(first.ranks[1].env.at("TORCHELASTIC_ERROR_FILE") ==
          "/w/.hvdrun-errors-x/attempt_0.rank_1.json");
    plan::begin_attempt(p, 1);
    CHECK(p.ranks[1].env.at("TORCHELASTIC_ERROR_FILE") ==
          "/w/.hvdrun-errors-x/attempt_1.rank_1.json");
  }
}

TEST_CASE("rank_error_file: a Slurm task names its file from what srun passed on") {
  slurm::StepTask t;
  t.rank = 5;
  t.size = 8;
  t.local_rank = 1;
  t.local_size = 4;
  t.node_rank = 1;
  t.num_nodes = 2;
  t.step_nodes = {"nid001", "nid002"};
  t.job_id = "4242";
  const hvd::launcher::EnvMap srun_env = {{"TORCHELASTIC_ERROR_FILE", "/w/error.json"},
                                          {"HVD_RANK_ERROR_DIR", "/w/.hvdrun-errors-x"},
                                          {"TORCHELASTIC_RESTART_COUNT", "2"}};
  CHECK(plan::task_env(t, {}, srun_env).at("TORCHELASTIC_ERROR_FILE") ==
        "/w/.hvdrun-errors-x/attempt_2.rank_5.json");
  CHECK(plan::task_env(t, {}, {{"TORCHELASTIC_ERROR_FILE", "/w/error.json"}})
            .count("TORCHELASTIC_ERROR_FILE") == 0);  // srun passes the user's on unchanged
}
