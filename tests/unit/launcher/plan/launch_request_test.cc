// SPDX-License-Identifier: Apache-2.0
#include "plan/launch_request.h"

#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "config/settings_layers.h"
#include "hvd/error.h"

namespace config = hvd::launcher::config;
namespace plan = hvd::launcher::plan;
using plan::Mode;

namespace {
const std::set<std::string> kNames = {"localhost", "127.0.0.1", "thishost"};
config::RunOptions with_command() {
  config::RunOptions o;
  o.command = {"prog"};
  return o;
}
plan::LaunchRequest resolve(const config::RunOptions& o, const hvd::launcher::EnvMap& env = {},
                            Mode mode = Mode::kLocal, const std::string& defaults = "") {
  return plan::resolve_request(o, mode, defaults, [] { return kNames; }, env);
}
// The message of the UsageError or ConfigError that resolving `o` in `mode` throws; "" if none.
std::string refusal(const config::RunOptions& o, Mode mode,
                    const hvd::launcher::EnvMap& env = {}) {
  try {
    static_cast<void>(resolve(o, env, mode));
  } catch (const hvd::Error& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("launch_request: -np, -H and the slots they give") {
  config::RunOptions o = with_command();
  o.num_proc = 3;
  plan::LaunchRequest c = resolve(o);
  CHECK(c.num_proc == 3);

  o.num_proc.reset();
  o.hosts = "thishost:4";
  c = resolve(o);
  CHECK(c.num_proc == 4);  // -H alone: as many ranks as slots

  o.num_proc = 2;
  CHECK(resolve(o).num_proc == 2);
  o.num_proc = 5;
  CHECK_THROWS_AS(resolve(o), hvd::UsageError);
  o.hostfile = "x";
  CHECK_THROWS_WITH_AS(resolve(o),
                       "-H and --hostfile are mutually exclusive; give one of them",
                       hvd::UsageError);
}

TEST_CASE("launch_request: built-in values stand when there is no defaults file") {
  config::RunOptions o = with_command();
  o.num_proc = 1;
  const plan::LaunchRequest c = resolve(o, {}, Mode::kLocal, "/nonexistent.yaml");
  CHECK(c.sources.empty());
  CHECK(c.settings.tunables.cache_capacity == 1024);
  CHECK(c.bind_to == hvd::launcher::binding::BindPolicy::kAuto);
}

TEST_CASE("launch_request: flags override settings one by one") {
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
  config::Settings s = resolve(o, env).settings;
  CHECK(s.tunables.cycle_time_ms == 7);
  CHECK(s.tunables.fusion_threshold_mb == 2);
  CHECK(s.tunables.stall_warning_seconds == 0.5);
  o.config_file = file;
  CHECK(resolve(o, env).settings.tunables.cycle_time_ms == 3);
  o.cycle_time_ms = 9;
  CHECK(resolve(o, env).settings.tunables.cycle_time_ms == 9);
  std::filesystem::remove(file);
}

TEST_CASE("a HOROVOD_* value that does not parse is a config error naming the variable") {
  config::RunOptions o = with_command();
  o.num_proc = 1;
  CHECK_THROWS_WITH_AS(
      resolve(o, {{"HOROVOD_CYCLE_TIME", "fast"}}),
      "environment: HOROVOD_CYCLE_TIME='fast' is not a number; fix or unset it", hvd::ConfigError);
  CHECK_THROWS_WITH_AS(resolve(o, {{"HOROVOD_CYCLE_TIME", "0"}}),
                       "environment: cycle time must be > 0 ms (HOROVOD_CYCLE_TIME); fix or "
                       "unset it",
                       hvd::ConfigError);
}

// Issue 10: `-np 2147483647 --dry-run` ended in bad_alloc, which hvdrun reports as exit 70.
TEST_CASE("launch_request: more ranks than hvdrun can start is a usage error with the limit") {
  config::RunOptions o = with_command();
  o.num_proc = 2147483647;
  CHECK_THROWS_WITH_AS(resolve(o),
                       "-np 2147483647: hvdrun starts at most 131072 ranks", hvd::UsageError);
  o.num_proc = config::kMaxRanks;
  CHECK(resolve(o).num_proc == config::kMaxRanks);
}

TEST_CASE("launch_request: an option checked once says the same in every mode") {
  config::RunOptions no_program;
  no_program.num_proc = 2;
  config::RunOptions no_ranks = with_command();
  no_ranks.num_proc = 0;
  config::RunOptions bad_cycle = with_command();
  bad_cycle.num_proc = 2;
  bad_cycle.cycle_time_ms = -1;
  for (const config::RunOptions& o : {no_program, no_ranks, bad_cycle}) {
    // Local mode's refusal is the reference: the one check, whichever mode runs it.
    const std::string reference = refusal(o, Mode::kLocal);
    CAPTURE(reference);
    CHECK_FALSE(reference.empty());
    CHECK(refusal(o, Mode::kMpirun) == reference);
    CHECK(refusal(o, Mode::kSlurm) == reference);
  }
  CHECK(refusal(no_program, Mode::kSlurm).find("no program given") == 0);
  CHECK(refusal(no_ranks, Mode::kSlurm) == "-np: must be at least 1, got 0");
}

TEST_CASE("launch_request: the rank count in Slurm mode is -np or the allocation's") {
  config::RunOptions o = with_command();
  o.hosts = "elsewhere:9";  // -H is a local-mode option: Slurm mode never asks for the names
  const auto no_names = []() -> std::set<std::string> {
    FAIL("Slurm mode looked up this machine's names");
    return {};
  };
  for (const std::optional<int> np : {std::optional<int>(), std::optional<int>(3)}) {
    o.num_proc = np;
    const plan::LaunchRequest r = plan::resolve_request(o, Mode::kSlurm, "", no_names, {});
    CHECK(r.num_proc == np.value_or(0));
    CHECK(r.mode == Mode::kSlurm);
    CHECK(r.command == o.command);
  }
}

TEST_CASE("launch_request: mode-only refusals") {
  config::RunOptions o = with_command();
  o.num_proc = 2;
  o.tf_config = true;
  CHECK(refusal(o, Mode::kMpirun).find("--tf-config cannot be used with --mpi") == 0);
  CHECK(refusal(o, Mode::kLocal).empty());
  const hvd::launcher::EnvMap in_task = {{"SLURM_STEP_ID", "0"}, {"SLURM_PROCID", "1"}};
  CHECK(refusal(o, Mode::kSlurm, in_task).find("hvdrun is running inside an srun task") == 0);
  CHECK(refusal(o, Mode::kLocal, in_task).empty());
}
