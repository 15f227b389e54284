// SPDX-License-Identifier: Apache-2.0
// The one rank identity (plan/rank_env.h): the rules every mode shares.
#include "plan/rank_env.h"

#include <doctest/doctest.h>

#include "plan/task_env.h"
#include "slurm/srun_command.h"

namespace plan = hvd::launcher::plan;
namespace slurm = hvd::launcher::slurm;

TEST_CASE("omp_threads: binding, then the scheduler's CPUs per task, then the node's share") {
  CHECK(plan::omp_threads({3, 16, 64}, 4) == 3);   // pinned to 3 cores
  CHECK(plan::omp_threads({0, 16, 64}, 4) == 16);  // SLURM_CPUS_PER_TASK
  CHECK(plan::omp_threads({0, 0, 64}, 4) == 16);   // the node's cores over its ranks
  CHECK(plan::omp_threads({0, 0, 2}, 8) == 1);     // never 0 when something is known
  CHECK(plan::omp_threads({0, 0, 0}, 4) == 0);     // nothing known: left unset
}

TEST_CASE("rank_env: identity in Horovod's and torch's names, the rendezvous, the defaults") {
  plan::RankIdentity id{5, 8, 1, 4, 1, 2, "nid002"};
  plan::RunSetup run{"nid001", 24242, {}, {"/opt/hvd/python"}};
  const auto env = plan::rank_env(id, run, {0, 0, 64}, {}, {{"PYTHONPATH", "/mine"}});
  CHECK(env.at("HOROVOD_RANK") == "5");
  CHECK(env.at("RANK") == "5");
  CHECK(env.at("HOROVOD_SIZE") == "8");
  CHECK(env.at("LOCAL_WORLD_SIZE") == "4");
  CHECK(env.at("GROUP_RANK") == "1");
  CHECK(env.at("HOROVOD_CROSS_SIZE") == "2");
  CHECK(env.at("HOROVOD_HOSTNAME") == "nid002");
  CHECK(env.at("MASTER_ADDR") == "nid001");
  CHECK(env.at("MASTER_PORT") == "24242");
  CHECK(env.at("OMP_NUM_THREADS") == "16");
  CHECK(env.at("PYTHONUNBUFFERED") == "1");
  CHECK(env.at("PYTHONPATH") == "/opt/hvd/python:/mine");
  CHECK(env.count("CUDA_VISIBLE_DEVICES") == 0);
  CHECK(env.count("TF_CONFIG") == 0);
}

TEST_CASE("rank_env: the user's OMP_NUM_THREADS and PYTHONUNBUFFERED win in every mode") {
  const hvd::EnvMap user = {{"OMP_NUM_THREADS", "2"}, {"PYTHONUNBUFFERED", "0"}};
  const auto shared = plan::shared_env({}, {4, 0, 0}, 1, user);
  CHECK(shared.count("OMP_NUM_THREADS") == 0);
  CHECK(shared.count("PYTHONUNBUFFERED") == 0);
  const auto rank = plan::rank_env({}, {}, {4, 0, 0}, {}, user);
  CHECK(rank.count("OMP_NUM_THREADS") == 0);
  CHECK(rank.count("PYTHONUNBUFFERED") == 0);
}

TEST_CASE("rank_env: the GPU's variable, and PCI order only for ids hvdrun scanned") {
  plan::GpuChoice rocm{"ROCR_VISIBLE_DEVICES", "3", false};
  const auto amd = plan::rank_env({}, {}, {}, rocm, {});
  CHECK(amd.at("ROCR_VISIBLE_DEVICES") == "3");
  CHECK(amd.count("CUDA_DEVICE_ORDER") == 0);
  plan::GpuChoice scanned{"CUDA_VISIBLE_DEVICES", "1", true};
  CHECK(plan::rank_env({}, {}, {}, scanned, {}).at("CUDA_DEVICE_ORDER") == "PCI_BUS_ID");
  CHECK(plan::rank_env({}, {}, {}, scanned, {{"CUDA_DEVICE_ORDER", "FASTEST_FIRST"}})
            .count("CUDA_DEVICE_ORDER") == 0);
}

TEST_CASE("rank_env: a Slurm task gets what rank_env gives the same identity") {
  slurm::StepTask t;
  t.rank = 6;
  t.size = 8;
  t.local_rank = 2;
  t.local_size = 4;
  t.node_rank = 1;
  t.num_nodes = 2;
  t.step_nodes = {"nid001", "nid002"};
  t.job_id = "4242";
  plan::TaskEnvOptions o;
  const hvd::EnvMap inherited = {{"SLURM_CPUS_ON_NODE", "32"}};
  plan::RankIdentity id{6, 8, 2, 4, 1, 2, "nid002"};
  plan::RunSetup run{"nid001", slurm::master_port_for("4242", 0), {}, {}};
  CHECK(plan::task_env(t, o, inherited) == plan::rank_env(id, run, {0, 0, 32}, {}, inherited));
}
