// SPDX-License-Identifier: Apache-2.0
#include "exec/srun_report.h"

#include <doctest/doctest.h>

#include <csignal>

using hvd::launcher::exec::SrunReport;

TEST_CASE("srun_report: the first task failure srun reports is the one that counts") {
  SrunReport report;
  report.observe("srun: cluster configuration lacks support for cpu binding");
  report.observe("srun: error: node2: task 5: Exited with exit code 3");
  report.observe("srun: error: node1: tasks 0-4,6: Terminated");
  REQUIRE(report.first_failure());
  CHECK(report.first_failure()->node == "node2");
  CHECK(report.first_failure()->tasks == "5");
  CHECK(report.first_failure()->exit_code == 3);
  CHECK(report.first_failure()->how == "exited with code 3");
}

TEST_CASE("srun_report: signals become 128+signal") {
  const auto segv = SrunReport::parse("srun: error: nid001: task 2: Segmentation fault (core dumped)");
  REQUIRE(segv);
  CHECK(segv->exit_code == 128 + SIGSEGV);
  CHECK(segv->how == "was killed by SIGSEGV (Segmentation fault (core dumped))");
  const auto killed = SrunReport::parse("srun: error: node1: tasks 0-3: Killed");
  REQUIRE(killed);
  CHECK(killed->exit_code == 128 + SIGKILL);
  CHECK_FALSE(SrunReport::parse("srun: error: node1: task 0: Exited with exit code 0"));
  CHECK_FALSE(SrunReport::parse("[0]<stdout>:srun: error: node1: task 0: Killed"));
  CHECK_FALSE(SrunReport::parse("srun: error: Unable to allocate resources: Invalid account"));
}

TEST_CASE("srun_report: an exit code out of range is not srun's message and throws nothing") {
  // Before: std::stoi threw out_of_range and hvdrun exited 70.
  CHECK_FALSE(SrunReport::parse("srun: error: n1: task 0: Exited with exit code 99999999999"));
  CHECK_FALSE(SrunReport::parse("srun: error: n1: task 0: Exited with exit code 256"));
  SrunReport report;
  CHECK_NOTHROW(report.observe("srun: error: n1: task 0: Exited with exit code 4294967296000"));
  CHECK_FALSE(report.first_failure());
}
