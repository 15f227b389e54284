// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "config/env_map.h"
#include "hvd/error.h"
#include "slurm/allocation.h"

using hvd::launcher::EnvMap;
namespace slurm = hvd::launcher::slurm;
using Hosts = std::vector<std::string>;

namespace {
// The SchedulerError message parse_allocation() throws for `env`, or "" if it accepts it.
std::string allocation_error(const EnvMap& env) {
  try {
    slurm::parse_allocation(env);
  } catch (const hvd::SchedulerError& e) {
    return e.what();
  }
  return "";
}

std::string step_error(const EnvMap& env) {
  try {
    slurm::parse_step_task(env);
  } catch (const hvd::SchedulerError& e) {
    return e.what();
  }
  return "";
}

bool text_contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// A batch-script environment: 10 tasks on 3 nodes.
EnvMap batch_env() {
  return {{"SLURM_JOB_ID", "4242"},
          {"SLURM_JOB_NODELIST", "gpu[01-03]"},
          {"SLURM_TASKS_PER_NODE", "4(x2),2"},
          {"SLURM_NTASKS", "10"},
          {"SLURM_CLUSTER_NAME", "alps"},
          {"SLURM_JOB_PARTITION", "normal"},
          {"SLURM_JOB_CPUS_PER_NODE", "72(x2),36"},
          {"SLURM_GPUS_ON_NODE", "4"},
          {"SLURM_JOB_GPUS", "0-3"}};
}

// What srun gives task 5 of a 10-task step on gpu[01-03]: the first task on the second node.
EnvMap step_env() {
  return {{"SLURM_JOB_ID", "4242"},
          {"SLURM_STEP_ID", "0"},
          {"SLURM_PROCID", "5"},
          {"SLURM_NTASKS", "10"},
          {"SLURM_LOCALID", "1"},
          {"SLURM_NODEID", "1"},
          {"SLURM_STEP_NUM_NODES", "3"},
          {"SLURM_STEP_NODELIST", "gpu[01-03]"},
          {"SLURM_STEP_TASKS_PER_NODE", "4(x2),2"},
          {"SLURM_JOB_NODELIST", "gpu[01-04]"}};
}

EnvMap with(EnvMap env, const std::string& key, const std::string& value) {
  env[key] = value;
  return env;
}

EnvMap without(EnvMap env, const std::string& key) {
  env.erase(key);
  return env;
}
}  // namespace

TEST_CASE("allocation: expands nodelist and tasks-per-node") {
  const EnvMap env = {{"SLURM_JOB_ID", "7"},
                      {"SLURM_JOB_NODELIST", "gpu[01-03]"},
                      {"SLURM_TASKS_PER_NODE", "4(x2),2"},
                      {"SLURM_NTASKS", "10"}};
  const slurm::Allocation a = slurm::parse_allocation(env);
  CHECK(a.job_id == "7");
  CHECK(a.nodes == Hosts{"gpu01", "gpu02", "gpu03"});
  CHECK(a.tasks_per_node == std::vector<int>{4, 4, 2});
  CHECK(a.ntasks == 10);
  SUBCASE("unset optional variables keep their defaults") {
    CHECK(a.cluster_name.empty());
    CHECK(a.partition.empty());
    CHECK(a.cpus_per_node.empty());
    CHECK(a.gpus_on_node == -1);
    CHECK(a.job_gpus.empty());
  }
  SUBCASE("missing nodelist is a SchedulerError, not a crash") {
    CHECK_THROWS_AS(slurm::parse_allocation(EnvMap{}), hvd::SchedulerError);
  }
}

TEST_CASE("allocation: reads every field of a batch environment") {
  const slurm::Allocation a = slurm::parse_allocation(batch_env());
  CHECK(a.job_id == "4242");
  CHECK(a.cluster_name == "alps");
  CHECK(a.partition == "normal");
  CHECK(a.nodes == Hosts{"gpu01", "gpu02", "gpu03"});
  CHECK(a.tasks_per_node == std::vector<int>{4, 4, 2});
  CHECK(a.cpus_per_node == std::vector<int>{72, 72, 36});
  CHECK(a.ntasks == 10);
  CHECK(a.gpus_on_node == 4);
  CHECK(a.job_gpus == std::vector<int>{0, 1, 2, 3});
}

TEST_CASE("allocation: the old variable names are read too") {
  const EnvMap env = {{"SLURM_JOBID", "9"}, {"SLURM_NODELIST", "n[1-2]"}, {"SLURM_NPROCS", "2"}};
  CHECK(slurm::in_allocation(env));
  const slurm::Allocation a = slurm::parse_allocation(env);
  CHECK(a.job_id == "9");
  CHECK(a.nodes == Hosts{"n1", "n2"});
  CHECK(a.ntasks == 2);
  CHECK(a.tasks_per_node.empty());
  // The current names win when both are set.
  const EnvMap both = {{"SLURM_JOB_ID", "1"},
                       {"SLURM_JOBID", "2"},
                       {"SLURM_JOB_NODELIST", "a"},
                       {"SLURM_NODELIST", "b"}};
  CHECK(slurm::parse_allocation(both).job_id == "1");
  CHECK(slurm::parse_allocation(both).nodes == Hosts{"a"});
}

TEST_CASE("allocation: in_allocation looks only at the job id") {
  CHECK_FALSE(slurm::in_allocation(EnvMap{}));
  CHECK_FALSE(slurm::in_allocation({{"SLURM_JOB_NODELIST", "a"}}));
  CHECK_FALSE(slurm::in_allocation({{"SLURM_JOB_ID", ""}}));
  CHECK(slurm::in_allocation({{"SLURM_JOB_ID", "1"}}));
  CHECK(slurm::in_allocation({{"SLURM_JOBID", "1"}}));
}

TEST_CASE("allocation: missing or malformed variables are SchedulerErrors naming them") {
  struct Bad {
    EnvMap env;
    std::string why;
  };
  const std::vector<Bad> cases = {
      {without(batch_env(), "SLURM_JOB_ID"), "SLURM_JOB_ID or SLURM_JOBID is not set"},
      {with(batch_env(), "SLURM_JOB_ID", ""), "SLURM_JOB_ID='' is not a Slurm job id"},
      {with(batch_env(), "SLURM_JOB_ID", "12;rm"), "SLURM_JOB_ID='12;rm' is not a Slurm job"},
      {without(batch_env(), "SLURM_JOB_NODELIST"),
       "SLURM_JOB_NODELIST or SLURM_NODELIST is not set"},
      {with(batch_env(), "SLURM_JOB_NODELIST", "gpu[03-01]"),
       "SLURM_JOB_NODELIST: hostlist 'gpu[03-01]': range '03-01' is descending"},
      {with(batch_env(), "SLURM_JOB_NODELIST", ""), "SLURM_JOB_NODELIST is empty"},
      {with(batch_env(), "SLURM_TASKS_PER_NODE", "4(x4)"),
       "SLURM_TASKS_PER_NODE='4(x4)' has 4 entries but SLURM_JOB_NODELIST='gpu[01-03]' has 3 "
       "nodes"},
      {with(batch_env(), "SLURM_TASKS_PER_NODE", "4(x2)"), "has 2 entries"},
      {with(batch_env(), "SLURM_TASKS_PER_NODE", "4(x)"),
       "SLURM_TASKS_PER_NODE: per-node count list '4(x)'"},
      {with(batch_env(), "SLURM_JOB_CPUS_PER_NODE", "72"),
       "SLURM_JOB_CPUS_PER_NODE='72' has 1 entries"},
      {with(batch_env(), "SLURM_NTASKS", "ten"), "SLURM_NTASKS='ten' is not an integer >= 1"},
      {with(batch_env(), "SLURM_NTASKS", "0"), "SLURM_NTASKS='0' is not an integer >= 1"},
      {with(batch_env(), "SLURM_NTASKS", "-3"), "SLURM_NTASKS='-3'"},
      {with(batch_env(), "SLURM_NTASKS", "99999999999"), "SLURM_NTASKS='99999999999'"},
      {with(batch_env(), "SLURM_GPUS_ON_NODE", "-1"), "SLURM_GPUS_ON_NODE='-1'"},
      {with(batch_env(), "SLURM_JOB_GPUS", "GPU-abc"), "SLURM_JOB_GPUS: GPU list 'GPU-abc'"},
  };
  for (const Bad& bad : cases) {
    CAPTURE(bad.why);
    const std::string message = allocation_error(bad.env);
    CAPTURE(message);
    CHECK(text_contains(message, bad.why));
  }
}

TEST_CASE("step task: reads the place of one srun task") {
  const slurm::StepTask t = slurm::parse_step_task(step_env());
  CHECK(t.rank == 5);
  CHECK(t.size == 10);
  CHECK(t.local_rank == 1);
  CHECK(t.local_size == 4);
  CHECK(t.node_rank == 1);
  CHECK(t.num_nodes == 3);
  CHECK(t.step_nodes == Hosts{"gpu01", "gpu02", "gpu03"});
  CHECK(t.job_id == "4242");
  CHECK(t.step_id == "0");
  SUBCASE("the last node takes its own entry of the tasks-per-node list") {
    EnvMap env = with(with(step_env(), "SLURM_NODEID", "2"), "SLURM_PROCID", "9");
    const slurm::StepTask last = slurm::parse_step_task(with(env, "SLURM_LOCALID", "1"));
    CHECK(last.local_size == 2);
    CHECK(last.node_rank == 2);
  }
}

TEST_CASE("step task: falls back to the job-level and old variable names") {
  const EnvMap env = {{"SLURM_JOBID", "4242"},      {"SLURM_STEPID", "3"},
                      {"SLURM_PROCID", "0"},        {"SLURM_NPROCS", "2"},
                      {"SLURM_LOCALID", "0"},       {"SLURM_NODEID", "0"},
                      {"SLURM_NNODES", "1"},        {"SLURM_JOB_NODELIST", "n[7-8]"},
                      {"SLURM_TASKS_PER_NODE", "2"}};
  const slurm::StepTask t = slurm::parse_step_task(env);
  CHECK(t.job_id == "4242");
  CHECK(t.step_id == "3");
  CHECK(t.size == 2);
  CHECK(t.local_size == 2);
  CHECK(t.num_nodes == 1);
  CHECK(t.step_nodes == Hosts{"n7", "n8"});  // the job's nodes: the step uses a prefix of them
  const EnvMap job_nodes = with(without(env, "SLURM_NNODES"), "SLURM_JOB_NUM_NODES", "2");
  CHECK(slurm::parse_step_task(job_nodes).num_nodes == 2);
  CHECK(slurm::parse_step_task(without(env, "SLURM_STEPID")).step_id.empty());
}

TEST_CASE("step task: missing, malformed or inconsistent variables are SchedulerErrors") {
  struct Bad {
    EnvMap env;
    std::string why;
  };
  const std::vector<Bad> cases = {
      {without(step_env(), "SLURM_JOB_ID"), "SLURM_JOB_ID or SLURM_JOBID is not set"},
      {without(step_env(), "SLURM_PROCID"), "SLURM_PROCID is not set"},
      {without(step_env(), "SLURM_NTASKS"), "SLURM_NTASKS or SLURM_NPROCS is not set"},
      {without(step_env(), "SLURM_LOCALID"), "SLURM_LOCALID is not set"},
      {without(step_env(), "SLURM_NODEID"), "SLURM_NODEID is not set"},
      {without(step_env(), "SLURM_STEP_NUM_NODES"),
       "SLURM_STEP_NUM_NODES or SLURM_NNODES or SLURM_JOB_NUM_NODES is not set"},
      {without(without(step_env(), "SLURM_STEP_NODELIST"), "SLURM_JOB_NODELIST"),
       "SLURM_STEP_NODELIST or SLURM_JOB_NODELIST or SLURM_NODELIST is not set"},
      {without(step_env(), "SLURM_STEP_TASKS_PER_NODE"),
       "SLURM_STEP_TASKS_PER_NODE or SLURM_TASKS_PER_NODE is not set"},
      {with(step_env(), "SLURM_PROCID", "x"), "SLURM_PROCID='x' is not an integer >= 0"},
      {with(step_env(), "SLURM_PROCID", "-1"), "SLURM_PROCID='-1' is not an integer >= 0"},
      {with(step_env(), "SLURM_PROCID", "10"), "SLURM_PROCID=10 is not below SLURM_NTASKS=10"},
      {with(step_env(), "SLURM_NTASKS", "0"), "SLURM_NTASKS='0' is not an integer >= 1"},
      {with(step_env(), "SLURM_NODEID", "3"), "SLURM_NODEID=3 is not below SLURM_STEP_NUM_NODES=3"},
      {with(step_env(), "SLURM_STEP_NUM_NODES", "0"), "SLURM_STEP_NUM_NODES='0'"},
      {with(step_env(), "SLURM_LOCALID", "4"),
       "SLURM_LOCALID=4 is not below 4, this node's entry of SLURM_STEP_TASKS_PER_NODE='4(x2),2'"},
      {with(step_env(), "SLURM_LOCALID", "1 "), "SLURM_LOCALID='1 '"},
      {with(step_env(), "SLURM_STEP_NODELIST", "gpu[01-02]"),
       "SLURM_STEP_NODELIST='gpu[01-02]' has 2 nodes but SLURM_STEP_NUM_NODES=3"},
      {with(step_env(), "SLURM_STEP_NODELIST", "gpu[01-04]"), "has 4 nodes"},
      {with(without(step_env(), "SLURM_STEP_NODELIST"), "SLURM_JOB_NODELIST", "gpu01"),
       "SLURM_JOB_NODELIST='gpu01' has 1 nodes but SLURM_STEP_NUM_NODES=3"},
      {with(step_env(), "SLURM_STEP_NODELIST", "gpu[01-"), "SLURM_STEP_NODELIST: hostlist"},
      {with(step_env(), "SLURM_STEP_TASKS_PER_NODE", "4"),
       "SLURM_STEP_TASKS_PER_NODE='4' has no entry for SLURM_NODEID=1"},
      {with(step_env(), "SLURM_STEP_TASKS_PER_NODE", "4(x2"),
       "SLURM_STEP_TASKS_PER_NODE: per-node count list"},
  };
  for (const Bad& bad : cases) {
    CAPTURE(bad.why);
    const std::string message = step_error(bad.env);
    CAPTURE(message);
    CHECK(text_contains(message, bad.why));
  }
}
