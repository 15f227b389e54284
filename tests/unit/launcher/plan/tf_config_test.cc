// SPDX-License-Identifier: Apache-2.0
// TF_CONFIG, locally (launch plan) and inside Slurm (task_env), parsed back as TensorFlow's
// TFConfigClusterResolver reads it.
#include "plan/tf_config.h"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <set>

#include "hvd/error.h"
#include "plan/local_plan.h"
#include "plan/task_env.h"

namespace plan = hvd::launcher::plan;
namespace slurm = hvd::launcher::slurm;
using nlohmann::json;

namespace {

void check_tf_config(const std::string& text, const std::vector<std::string>& workers, int index) {
  const json j = json::parse(text);
  CHECK(j.at("cluster").size() == 1);  // workers only: no chief, no ps
  CHECK(j.at("cluster").at("worker").get<std::vector<std::string>>() == workers);
  CHECK(j.at("task").at("type") == "worker");
  CHECK(j.at("task").at("index") == index);
}

}  // namespace

TEST_CASE("tf_config: workers in rank order, task index = rank") {
  const std::vector<std::string> workers = {"a:1", "a:2", "b:1"};
  check_tf_config(plan::tf_config_json(workers, 2), workers, 2);
}

TEST_CASE("tf_config: local plan gives each rank its own port on this machine") {
  plan::LaunchRequest cfg;
  cfg.num_proc = 3;
  cfg.command = {"prog"};
  plan::MachineFacts facts;
  facts.hostname = "box";
  facts.topology.cores = {{0, {0}, 0}};
  plan::Endpoints ep;
  ep.tf_ports = {5001, 5002, 5003};
  const plan::LaunchPlan p = plan::build_local_plan(cfg, facts, ep, "/bin/prog");
  const std::vector<std::string> workers = {"127.0.0.1:5001", "127.0.0.1:5002", "127.0.0.1:5003"};
  for (int rank = 0; rank < 3; ++rank) {
    CAPTURE(rank);
    check_tf_config(p.ranks[static_cast<size_t>(rank)].env.at("TF_CONFIG"), workers, rank);
  }
}

TEST_CASE("tf_config: not set unless asked for") {
  plan::LaunchRequest cfg;
  cfg.num_proc = 1;
  cfg.command = {"prog"};
  plan::MachineFacts facts;
  facts.topology.cores = {{0, {0}, 0}};
  const plan::LaunchPlan p = plan::build_local_plan(cfg, facts, {}, "/bin/prog");
  CHECK(p.ranks[0].env.count("TF_CONFIG") == 0);
  CHECK(plan::task_env({}, {}, {}).count("TF_CONFIG") == 0);
}

TEST_CASE("tf_config: Slurm ports are base + job block + local rank, the same in every task") {
  CHECK(plan::tf_port_for("4242", 0) == 10000 + (4242 % 150) * 64);
  CHECK(plan::tf_port_for("4242", 3) == plan::tf_port_for("4242", 0) + 3);
  CHECK(plan::tf_port_for("4243", 0) == plan::tf_port_for("4242", 0) + 64);  // next job's block
  CHECK(plan::tf_port_for("149", 63) == 19599);  // the highest: below MASTER_PORT's 20000
  CHECK_THROWS_AS(plan::tf_port_for("1", 64), hvd::UsageError);
  std::set<int> ports;
  for (int job = 0; job < 150; ++job) ports.insert(plan::tf_port_for(std::to_string(job), 0));
  CHECK(ports.size() == 150);
}

TEST_CASE("tf_config: an srun task gets the shared worker list and its own index") {
  slurm::StepTask t;
  t.rank = 3;
  t.size = 4;
  t.local_rank = 1;
  t.local_size = 2;
  t.node_rank = 1;
  t.num_nodes = 2;
  t.step_nodes = {"n1", "n2"};
  t.job_id = "7";
  plan::TaskEnvOptions o;
  o.tf_workers = {"10.0.0.1:10448", "10.0.0.1:10449", "10.0.0.2:10448", "10.0.0.2:10449"};
  check_tf_config(plan::task_env(t, o, {}).at("TF_CONFIG"), o.tf_workers, 3);
}
