// SPDX-License-Identifier: Apache-2.0
#include "config/host_spec.h"

#include <doctest/doctest.h>

#include "hvd/error.h"

namespace config = hvd::launcher::config;

TEST_CASE("host_spec: -H lists") {
  const auto hosts = config::parse_host_list("a:4, b , c.example.org:2");
  REQUIRE(hosts.size() == 3);
  CHECK(hosts[0].name == "a");
  CHECK(hosts[0].slots == 4);
  CHECK(hosts[1].name == "b");
  CHECK(hosts[1].slots == 1);
  CHECK(hosts[2].slots == 2);
  for (const char* bad : {"", "a:", "a:0", "a:x", "a:4,", ",a", "a b:2", "a:-1"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(config::parse_host_list(bad), hvd::UsageError);
  }
}

TEST_CASE("host_spec: hostfiles in horovodrun and Open MPI forms") {
  const auto hosts = config::parse_hostfile_text(
      "# comment\n\nnode1 slots=4\nnode2:2\nnode3   # trailing comment\n", "hf");
  REQUIRE(hosts.size() == 3);
  CHECK(hosts[0].slots == 4);
  CHECK(hosts[1].name == "node2");
  CHECK(hosts[1].slots == 2);
  CHECK(hosts[2].slots == 1);
  CHECK_THROWS_WITH_AS(config::parse_hostfile_text("node1 slots=4\nnode2 cpus=3\n", "hf"),
                       "hf:2: 'node2 cpus=3' is not 'host slots=N', 'host:N' or 'host' (N from 1 "
                       "to 999999); fix the line",
                       hvd::ConfigError);
  CHECK_THROWS_AS(config::parse_hostfile_text("# nothing\n", "hf"), hvd::ConfigError);
  CHECK_THROWS_AS(config::parse_hostfile("/nonexistent/hostfile"), hvd::ConfigError);
}

TEST_CASE("host_spec: only this machine, named once") {
  const auto names = config::this_machine_names();
  CHECK(names.count("localhost") == 1);
  CHECK(names.count("127.0.0.1") == 1);
  config::require_local_hosts({{"localhost", 2}}, names, "-H");
  CHECK_THROWS_AS(config::require_local_hosts({{"elsewhere", 2}}, names, "-H"), hvd::UsageError);
  CHECK_THROWS_AS(config::require_local_hosts({{"localhost", 2}, {"127.0.0.1", 2}}, names, "-H"),
                  hvd::UsageError);
}
