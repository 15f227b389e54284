// SPDX-License-Identifier: Apache-2.0
// The one rank identity (plan/rank_env.h): the rules every mode shares.
#include "plan/rank_env.h"

#include <doctest/doctest.h>

#include "binding/cpu_list.h"
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
  const auto env = plan::rank_env(id, run, {0, 0, 64}, {}, {}, {{"PYTHONPATH", "/mine"}});
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
  const auto rank = plan::rank_env({}, {}, {4, 0, 0}, {}, {}, user);
  CHECK(rank.count("OMP_NUM_THREADS") == 0);
  CHECK(rank.count("PYTHONUNBUFFERED") == 0);
}

TEST_CASE("rank_env: the GPU's variable, and PCI order only for ids hvdrun scanned") {
  plan::GpuChoice rocm{"ROCR_VISIBLE_DEVICES", "3", false};
  const auto amd = plan::rank_env({}, {}, {}, rocm, {}, {});
  CHECK(amd.at("ROCR_VISIBLE_DEVICES") == "3");
  CHECK(amd.count("CUDA_DEVICE_ORDER") == 0);
  plan::GpuChoice scanned{"CUDA_VISIBLE_DEVICES", "1", true};
  CHECK(plan::rank_env({}, {}, {}, scanned, {}, {}).at("CUDA_DEVICE_ORDER") == "PCI_BUS_ID");
  CHECK(plan::rank_env({}, {}, {}, scanned, {}, {{"CUDA_DEVICE_ORDER", "FASTEST_FIRST"}})
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
  o.checkpoint_file = "/dev/shm/notice-6";
  std::vector<std::string> asked;
  o.interface_towards = [&asked](const std::string& addr) -> std::optional<std::string> {
    asked.push_back(addr);
    return "if-" + addr;
  };
  plan::RankIdentity id{6, 8, 2, 4, 1, 2, "nid002"};
  plan::RunSetup run{"nid001", slurm::master_port_for("4242", 0), {}, {}};
  for (const bool requeued : {false, true}) {
    for (const bool own_interface : {false, true}) {
      CAPTURE(requeued);
      CAPTURE(own_interface);
      hvd::EnvMap inherited = {{"SLURM_CPUS_ON_NODE", "32"}};
      if (requeued) inherited["SLURM_RESTART_COUNT"] = "2";
      if (own_interface) inherited["GLOO_SOCKET_IFNAME"] = "mine0";
      asked.clear();
      plan::RankExtras extras;
      extras.checkpoint_file = o.checkpoint_file;
      extras.socket_interface = own_interface ? "" : "if-" + run.master_addr;
      extras.requeue_count = requeued ? inherited.at("SLURM_RESTART_COUNT") : "0";
      CHECK(plan::task_env(t, o, inherited) ==
            plan::rank_env(id, run, {0, 0, 32}, {}, extras, inherited));
      // The route lookup runs only when the task has no interface of its own.
      CHECK(asked.size() == (own_interface ? 0u : 1u));
    }
  }
}

TEST_CASE("rank_env: each extra is written when known, and only then") {
  const std::vector<std::string> keys = {"HVD_STORE_ADDR", "HVD_RUN_ID", "HVD_CHECKPOINT_FILE",
                                         "HVD_CPU_LIST", "GLOO_SOCKET_IFNAME",
                                         "HVD_REQUEUE_COUNT"};
  for (unsigned known = 0; known < (1u << keys.size()); ++known) {
    CAPTURE(known);
    const auto has = [known](size_t i) { return ((known >> i) & 1u) != 0; };
    plan::RankExtras e;
    if (has(0)) e.store_addr = "10.0.0.1";
    if (has(0)) e.store_port = 4321;
    if (has(1)) e.run_id = "run-7";
    if (has(2)) e.checkpoint_file = "/dev/shm/notice";
    if (has(3)) e.cpus = {4, 5, 6, 9};
    if (has(4)) e.socket_interface = "ib0";
    if (has(5)) e.requeue_count = "3";
    const hvd::EnvMap env = plan::rank_env({}, {}, {}, {}, e, {});
    const std::vector<std::string> expected = {
        e.store_addr, e.run_id, e.checkpoint_file,
        e.cpus.empty() ? "" : hvd::launcher::binding::format_cpu_list(e.cpus), e.socket_interface,
        e.requeue_count};
    for (size_t i = 0; i < keys.size(); ++i) {
      CAPTURE(keys[i]);
      CHECK(env.count(keys[i]) == (has(i) ? 1u : 0u));
      if (has(i)) CHECK(env.at(keys[i]) == expected[i]);
    }
    CHECK(env.count("HVD_STORE_PORT") == (has(0) ? 1u : 0u));
    if (has(0)) CHECK(env.at("HVD_STORE_PORT") == std::to_string(e.store_port));
    // An interface the rank inherits wins over the one found for it.
    CHECK(plan::rank_env({}, {}, {}, {}, e, {{"GLOO_SOCKET_IFNAME", "eth9"}})
              .count("GLOO_SOCKET_IFNAME") == 0);
  }
}
