// SPDX-License-Identifier: Apache-2.0
#include "plan/task_env.h"

#include <doctest/doctest.h>

namespace plan = hvd::launcher::plan;
namespace slurm = hvd::launcher::slurm;

namespace {
slurm::StepTask task(int rank, int local_rank, int node) {
  slurm::StepTask t;
  t.rank = rank;
  t.size = 8;
  t.local_rank = local_rank;
  t.local_size = 4;
  t.node_rank = node;
  t.num_nodes = 2;
  t.step_nodes = {"nid001", "nid002"};
  t.job_id = "4242";
  return t;
}
}  // namespace

TEST_CASE("task_env: identity in Horovod's and torch's names") {
  const auto env = plan::task_env(task(5, 1, 1), {}, {{"SLURM_CPUS_PER_TASK", "16"}});
  CHECK(env.at("HOROVOD_RANK") == "5");
  CHECK(env.at("RANK") == "5");
  CHECK(env.at("WORLD_SIZE") == "8");
  CHECK(env.at("LOCAL_RANK") == "1");
  CHECK(env.at("LOCAL_WORLD_SIZE") == "4");
  CHECK(env.at("HOROVOD_CROSS_RANK") == "1");
  CHECK(env.at("GROUP_RANK") == "1");
  CHECK(env.at("HOROVOD_CROSS_SIZE") == "2");
  CHECK(env.at("HOROVOD_HOSTNAME") == "nid002");
  CHECK(env.at("MASTER_ADDR") == "nid001");  // the step's first node, never localhost
  CHECK(env.at("MASTER_PORT") == "24242");
  CHECK(env.at("OMP_NUM_THREADS") == "16");
  CHECK(env.count("CUDA_VISIBLE_DEVICES") == 0);  // no GPUs visible
}

TEST_CASE("task_env: one GPU per local rank, in the profile's order") {
  plan::TaskEnvOptions o;
  o.gpu_order = {3, 2, 1, 0};
  const hvd::launcher::EnvMap slurm_gave = {{"CUDA_VISIBLE_DEVICES", "0,1,2,3"}};
  CHECK(plan::task_env(task(0, 0, 0), o, slurm_gave).at("CUDA_VISIBLE_DEVICES") == "3");
  CHECK(plan::task_env(task(3, 3, 0), o, slurm_gave).at("CUDA_VISIBLE_DEVICES") == "0");
  o.gpu_order.clear();
  CHECK(plan::task_env(task(2, 2, 0), o, slurm_gave).at("CUDA_VISIBLE_DEVICES") == "2");
  // From SLURM_GPUS_ON_NODE when Slurm did not set the variable; AMD's variable.
  o.gpu_env = "ROCR_VISIBLE_DEVICES";
  const auto amd = plan::task_env(task(1, 1, 0), o, {{"SLURM_GPUS_ON_NODE", "8"}});
  CHECK(amd.at("ROCR_VISIBLE_DEVICES") == "1");
}

TEST_CASE("task_env: explicit rendezvous and the user's own settings win") {
  plan::TaskEnvOptions o;
  o.master_addr = "10.0.0.1";
  o.master_port = 6000;
  const auto env = plan::task_env(task(0, 0, 0), o, {{"OMP_NUM_THREADS", "2"}});
  CHECK(env.at("MASTER_ADDR") == "10.0.0.1");
  CHECK(env.at("MASTER_PORT") == "6000");
  CHECK(env.count("OMP_NUM_THREADS") == 0);
}

TEST_CASE("task_env: hvdrun's Python folders go in front of the task's PYTHONPATH") {
  plan::TaskEnvOptions o;
  CHECK(plan::task_env(task(0, 0, 0), o, {{"PYTHONPATH", "/mine"}}).count("PYTHONPATH") == 0);
  o.python_dirs = {"/p/lib/hvdrun/python", "/p/lib/hvdrun/horovod-compat"};
  CHECK(plan::task_env(task(0, 0, 0), o, {}).at("PYTHONPATH") ==
        "/p/lib/hvdrun/python:/p/lib/hvdrun/horovod-compat");
  CHECK(plan::task_env(task(0, 0, 0), o, {{"PYTHONPATH", "/mine:/more"}}).at("PYTHONPATH") ==
        "/p/lib/hvdrun/python:/p/lib/hvdrun/horovod-compat:/mine:/more");
}
