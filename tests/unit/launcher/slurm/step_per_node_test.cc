// SPDX-License-Identifier: Apache-2.0
#include "slurm/step_per_node.h"

#include <doctest/doctest.h>

#include "hvd/error.h"

namespace slurm = hvd::launcher::slurm;

namespace {
slurm::Allocation three_nodes(int ntasks, std::vector<int> per_node) {
  slurm::Allocation a;
  a.job_id = "77";
  a.nodes = {"n1", "n2", "n3"};
  a.ntasks = ntasks;
  a.tasks_per_node = std::move(per_node);
  return a;
}
}  // namespace

TEST_CASE("step per node: N ranks on each of the first M nodes") {
  const slurm::StepShape s = slurm::plan_step_per_node(three_nodes(0, {}), 2, 4);
  CHECK(s.nodes == 2);
  CHECK(s.ntasks == 8);
  CHECK(s.tasks_per_node == std::vector<int>{4, 4});
  SUBCASE("no --nnodes: every node of the job") {
    CHECK(slurm::plan_step_per_node(three_nodes(12, {4, 4, 4}), 0, 4).ntasks == 12);
  }
}

TEST_CASE("step per node: more than the job has is refused with the job's value") {
  CHECK_THROWS_WITH_AS(slurm::plan_step_per_node(three_nodes(0, {}), 4, 1),
                       doctest::Contains("--nnodes 4 is more than the 3 node(s) of job 77"),
                       hvd::UsageError);
  CHECK_THROWS_WITH_AS(slurm::plan_step_per_node(three_nodes(6, {2, 2, 2}), 3, 3),
                       doctest::Contains("more than the 6 tasks of job 77 (SLURM_NTASKS)"),
                       hvd::UsageError);
  CHECK_THROWS_WITH_AS(slurm::plan_step_per_node(three_nodes(9, {2, 5, 2}), 2, 3),
                       doctest::Contains("more than the 2 tasks job 77 has on n1"),
                       hvd::UsageError);
}
