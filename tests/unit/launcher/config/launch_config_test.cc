// SPDX-License-Identifier: Apache-2.0
#include "config/launch_config.h"

#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "hvd/error.h"

namespace config = hvd::launcher::config;

namespace {
const std::set<std::string> kNames = {"localhost", "127.0.0.1", "thishost"};
config::RunOptions with_command() {
  config::RunOptions o;
  o.command = {"prog"};
  return o;
}
}  // namespace

TEST_CASE("launch_config: -np, -H and the slots they give") {
  config::RunOptions o = with_command();
  o.num_proc = 3;
  config::LaunchConfig c = config::resolve_launch_config(o, "", kNames);
  CHECK(c.num_proc == 3);
  CHECK(c.host.name == "localhost");

  o.num_proc.reset();
  o.hosts = "thishost:4";
  c = config::resolve_launch_config(o, "", kNames);
  CHECK(c.num_proc == 4);  // -H alone: as many ranks as slots
  CHECK(c.host.name == "thishost");

  o.num_proc = 2;
  CHECK(config::resolve_launch_config(o, "", kNames).num_proc == 2);
  o.num_proc = 5;
  CHECK_THROWS_AS(config::resolve_launch_config(o, "", kNames), hvd::UsageError);
  o.hostfile = "x";
  CHECK_THROWS_WITH_AS(config::resolve_launch_config(o, "", kNames),
                       "-H and --hostfile are mutually exclusive; give one of them",
                       hvd::UsageError);
}

TEST_CASE("launch_config: built-in values stand when there is no defaults file") {
  config::RunOptions o = with_command();
  o.num_proc = 1;
  const config::LaunchConfig c = config::resolve_launch_config(o, "/nonexistent.yaml", kNames);
  CHECK(c.sources.empty());
  CHECK(c.settings.tunables.cache_capacity == 1024);
  CHECK(c.bind_to == hvd::launcher::binding::BindPolicy::kAuto);
}

TEST_CASE("launch_config: flags override settings one by one") {
  config::Settings s;
  config::RunOptions o;
  o.cache_capacity = 7;
  o.tag_output = false;
  o.bind_to = "none";
  config::apply_flags(s, o);
  CHECK(s.tunables.cache_capacity == 7);
  CHECK(s.tunables.cycle_time_ms == 1);  // untouched
  CHECK_FALSE(s.launcher.tag_output);
  CHECK(s.launcher.bind_to == "none");
}

TEST_CASE("HOROVOD_* in the environment beat the defaults and lose to the config file and flags") {
  const std::string file = (std::filesystem::temp_directory_path() /
                            ("hvd_env_layer_test_" + std::to_string(getpid()) + ".yaml"))
                               .string();
  std::ofstream(file) << "params:\n  cycle_time_ms: 3\n";
  const hvd::launcher::EnvMap env = {{"HOROVOD_CYCLE_TIME", "7"},
                                     {"HOROVOD_FUSION_THRESHOLD", "2097152"},
                                     {"HOROVOD_STALL_CHECK_TIME_SECONDS", "0.5"}};
  config::RunOptions o = with_command();
  o.num_proc = 1;
  config::Settings s = config::resolve_launch_config(o, "", kNames, env).settings;
  CHECK(s.tunables.cycle_time_ms == 7);
  CHECK(s.tunables.fusion_threshold_mb == 2);
  CHECK(s.tunables.stall_warning_seconds == 0.5);
  o.config_file = file;
  CHECK(config::resolve_launch_config(o, "", kNames, env).settings.tunables.cycle_time_ms == 3);
  o.cycle_time_ms = 9;
  CHECK(config::resolve_launch_config(o, "", kNames, env).settings.tunables.cycle_time_ms == 9);
  std::filesystem::remove(file);
}

TEST_CASE("a HOROVOD_* value that does not parse is a config error naming the variable") {
  config::RunOptions o = with_command();
  o.num_proc = 1;
  CHECK_THROWS_WITH_AS(
      config::resolve_launch_config(o, "", kNames, {{"HOROVOD_CYCLE_TIME", "fast"}}),
      "environment: HOROVOD_CYCLE_TIME='fast' is not a number; fix or unset it", hvd::ConfigError);
  CHECK_THROWS_WITH_AS(config::resolve_launch_config(o, "", kNames, {{"HOROVOD_CYCLE_TIME", "0"}}),
                       "environment: cycle time must be > 0 ms (HOROVOD_CYCLE_TIME); fix or "
                       "unset it",
                       hvd::ConfigError);
}

// Issue 10: `-np 2147483647 --dry-run` ended in bad_alloc, which hvdrun reports as exit 70.
TEST_CASE("launch_config: more ranks than hvdrun can start is a usage error with the limit") {
  config::RunOptions o = with_command();
  o.num_proc = 2147483647;
  CHECK_THROWS_WITH_AS(config::resolve_launch_config(o, "", kNames),
                       "-np 2147483647: hvdrun starts at most 131072 ranks", hvd::UsageError);
  o.num_proc = config::kMaxRanks;
  CHECK(config::resolve_launch_config(o, "", kNames).num_proc == config::kMaxRanks);
}
