// SPDX-License-Identifier: Apache-2.0
#include "slurm/srun_command.h"

#include <doctest/doctest.h>

#include "hvd/error.h"

namespace slurm = hvd::launcher::slurm;
namespace profile = hvd::launcher::profile;

namespace {
slurm::Allocation two_nodes(int ntasks, int gpus_on_node) {
  slurm::Allocation a;
  a.job_id = "123456";
  a.nodes = {"node1", "node2"};
  a.ntasks = ntasks;
  if (ntasks > 0) a.tasks_per_node = {ntasks / 2, ntasks - ntasks / 2};
  a.gpus_on_node = gpus_on_node;
  return a;
}
profile::SiteProfile four_gpu_profile() {
  profile::SiteProfile p;
  p.name = "t";
  p.gpus_per_node = 4;
  p.gpu_vendor = "nvidia";
  p.mpi = "pmix";
  p.cpu_bind = "cores";
  p.gpu_bind = "none";
  p.gpu_order = {3, 2, 1, 0};
  p.srun_args = {"--network=disable_rdzv_get"};
  return p;
}
}  // namespace

TEST_CASE("srun_command: ranks default to SLURM_NTASKS, else nodes x GPUs") {
  const profile::SiteProfile p = four_gpu_profile();
  slurm::StepShape s = slurm::plan_step(two_nodes(8, 4), p, 0);
  CHECK(s.ntasks == 8);
  CHECK(s.tasks_per_node == std::vector<int>{4, 4});
  s = slurm::plan_step(two_nodes(0, 4), p, 0);
  CHECK(s.ntasks == 8);
  s = slurm::plan_step(two_nodes(0, -1), p, 0);  // no GPU count from Slurm: the profile's
  CHECK(s.ntasks == 8);
  s = slurm::plan_step(two_nodes(8, 4), p, 3);   // fewer ranks use fewer nodes
  CHECK(s.nodes == 1);
  CHECK(s.tasks_per_node == std::vector<int>{3});
  CHECK_THROWS_AS(slurm::plan_step(two_nodes(8, 4), p, 9), hvd::UsageError);
}

TEST_CASE("srun_command: the step line carries the profile's flags and exec-rank") {
  const profile::SiteProfile p = four_gpu_profile();
  slurm::SrunRequest r;
  r.shape = slurm::plan_step(two_nodes(8, 4), p, 0);
  r.hvdrun = "/opt/hvdrun/bin/hvdrun";
  r.exec_rank_args = slurm::exec_rank_args_for(p);
  r.command = {"python3", "train.py", "--lr", "0.1"};
  r.user_srun_args = {"--exclusive"};
  CHECK(slurm::shell_join(slurm::build_srun_command(r, p)) ==
        "srun --nodes=2 --ntasks=8 --ntasks-per-node=4 --kill-on-bad-exit=1 --label --mpi=pmix "
        "--cpu-bind=cores --gpu-bind=none --network=disable_rdzv_get --exclusive "
        "/opt/hvdrun/bin/hvdrun exec-rank --gpu-env CUDA_VISIBLE_DEVICES --gpu-order 3,2,1,0 "
        "-- python3 train.py --lr 0.1");
}

TEST_CASE("srun_command: MASTER_PORT comes from the job id, and quoting is safe") {
  CHECK(slurm::master_port_for("123456", 0) == 20000 + 3456);
  CHECK(slurm::master_port_for("123456", 30000) == 33456);
  CHECK(slurm::master_port_for("7_3", 0) == 20073);  // array jobs: digits only
  CHECK(slurm::shell_quote("plain-word_1.2") == "plain-word_1.2");
  CHECK(slurm::shell_quote("two words") == "'two words'");
  CHECK(slurm::shell_quote("it's") == "'it'\\''s'");
  CHECK(slurm::shell_quote("") == "''");
  CHECK(slurm::shell_quote("$HOME") == "'$HOME'");
}

// Issue 10: a huge -np (or SLURM_NTASKS) in a job without a task count made a plan of one entry
// per rank and ended in bad_alloc (exit 70).
TEST_CASE("srun_command: more ranks than hvdrun starts is a usage error with the limit") {
  const profile::SiteProfile p = four_gpu_profile();
  CHECK_THROWS_WITH_AS(slurm::plan_step(two_nodes(0, 4), p, 2147483647),
                       "-np 2147483647: hvdrun starts at most 131072 ranks", hvd::UsageError);
  CHECK_THROWS_WITH_AS(slurm::plan_step(two_nodes(2000000000, 4), p, 0),
                       "SLURM_NTASKS=2000000000: hvdrun starts at most 131072 ranks",
                       hvd::UsageError);
}

TEST_CASE("srun_command: hvdrun why-node runs once on every node of the job, beside the step") {
  const std::vector<std::string> argv =
      slurm::build_why_node_command("/usr/bin/srun", "4242", 3, "/opt/hvdrun/bin/hvdrun");
  const std::vector<std::string> expected = {
      "/usr/bin/srun",   "--jobid=4242",       "--overlap",
      "--nodes=3",       "--ntasks=3",         "--ntasks-per-node=1",
      "--kill-on-bad-exit=0", "--quiet",      "/opt/hvdrun/bin/hvdrun",
      "why-node"};
  CHECK(argv == expected);
}
