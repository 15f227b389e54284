// SPDX-License-Identifier: Apache-2.0
#include "slurm/cpu_bind.h"

#include <doctest/doctest.h>

#include "hvd/error.h"

namespace slurm = hvd::launcher::slurm;

TEST_CASE("describe_cpu_bind: masks name the CPUs of each task, repeating for more tasks") {
  const std::string lumi =
      "mask_cpu:0x00fe000000000000,0xfe00000000000000,0x0000000000fe0000,0x00000000fe000000,"
      "0x00000000000000fe,0x000000000000fe00,0x000000fe00000000,0x0000fe0000000000";
  CHECK(slurm::describe_cpu_bind(lumi, 0, 7) == "49-55");
  CHECK(slurm::describe_cpu_bind(lumi, 1, 7) == "57-63");
  CHECK(slurm::describe_cpu_bind(lumi, 4, 7) == "1-7");
  CHECK(slurm::describe_cpu_bind(lumi, 8, 7) == "49-55");  // Slurm reuses the list
  CHECK(slurm::describe_cpu_bind("verbose,mask_cpu:0x3,0xC", 1, 0) == "2-3");
  // Wider than 64 bits (a GH200 node has 288 CPUs).
  CHECK(slurm::describe_cpu_bind("mask_cpu:0x1" + std::string(70, '0'), 0, 0) == "280");
}

TEST_CASE("describe_cpu_bind: maps, NUMA domains and Slurm's own placement") {
  CHECK(slurm::describe_cpu_bind("map_cpu:0,16,32", 2, 0) == "32");
  CHECK(slurm::describe_cpu_bind("map_ldom:3,1", 1, 0) == "NUMA domain 1");
  CHECK(slurm::describe_cpu_bind("mask_ldom:0x3", 0, 0) == "NUMA domains 0-1");
  CHECK(slurm::describe_cpu_bind("cores", 0, 32) == "32 CPUs, bound to cores by Slurm at start");
  CHECK(slurm::describe_cpu_bind("verbose,threads", 0, 0) == "CPUs, bound to threads by Slurm at start");
  CHECK(slurm::describe_cpu_bind("none", 0, 8) == "not bound (--cpu-bind=none)");
  CHECK(slurm::describe_cpu_bind("", 0, 72) == "72 CPUs (--cpus-per-task), placed by Slurm");
  CHECK(slurm::describe_cpu_bind("", 0, 0) == "not bound");
}

TEST_CASE("describe_cpu_bind: a list that does not parse is a config error naming it") {
  CHECK_THROWS_WITH_AS(slurm::describe_cpu_bind("mask_cpu:0xZZ", 0, 0),
                       "--cpu-bind=mask_cpu:0xZZ: '0xZZ' is not a hex CPU mask", hvd::ConfigError);
  CHECK_THROWS_AS(slurm::describe_cpu_bind("map_cpu:a", 0, 0), hvd::ConfigError);
  CHECK_THROWS_AS(slurm::describe_cpu_bind("map_cpu:1,,2", 1, 0), hvd::ConfigError);
  CHECK_THROWS_AS(slurm::describe_cpu_bind("mask_cpu:", 0, 0), hvd::ConfigError);
}
