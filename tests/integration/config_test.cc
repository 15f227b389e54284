// SPDX-License-Identifier: Apache-2.0
// Precedence of settings: command line > --config-file > configs/defaults.yaml > built-in.

#include <doctest/doctest.h>

#include <fstream>

#include "integration/hvdrun_test_util.h"

using namespace hvd::test;
using nlohmann::json;

namespace {

json dry_run(std::vector<std::string> flags) {
  flags.insert(flags.begin(), {"-np", "2", "--dry-run"});
  flags.insert(flags.end(), {"--", "/bin/true"});
  const ProcessResult r = run(hvdrun(flags));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  return json::parse(r.out);
}

std::string env_of(const json& plan, const char* key) {
  return plan.at("ranks").at(0).at("env").value(key, "<unset>");
}

std::string write_file(const TempDir& dir, const std::string& name, const std::string& text) {
  std::ofstream(dir.file(name)) << text;
  return dir.file(name);
}

}  // namespace

TEST_CASE("configs/defaults.yaml supplies the defaults") {
  const json plan = dry_run({});
  CHECK(env_of(plan, "HOROVOD_FUSION_THRESHOLD") == "134217728");
  CHECK(env_of(plan, "HOROVOD_CYCLE_TIME") == "1");
  CHECK(env_of(plan, "HOROVOD_CACHE_CAPACITY") == "1024");
  CHECK(env_of(plan, "HOROVOD_STALL_CHECK_TIME_SECONDS") == "60");
  CHECK(env_of(plan, "HOROVOD_TIMELINE") == "<unset>");
  REQUIRE(plan.at("settings_sources").size() == 1);
  CHECK(plan.at("settings_sources").at(0).get<std::string>().find("defaults.yaml") !=
        std::string::npos);
}

TEST_CASE("the config file beats the defaults, and flags beat the config file") {
  TempDir dir;
  const std::string file = write_file(dir, "run.yaml",
                                      "params:\n  fusion_threshold_mb: 64\n  cycle_time_ms: 5\n"
                                      "timeline:\n  filename: /var/tmp/tl.json\n"
                                      "stall_check:\n  warning_time_seconds: 30\n"
                                      "logging:\n  level: debug\n");
  const json from_file = dry_run({"--config-file", file});
  CHECK(env_of(from_file, "HOROVOD_FUSION_THRESHOLD") == "67108864");
  CHECK(env_of(from_file, "HOROVOD_CYCLE_TIME") == "5");
  CHECK(env_of(from_file, "HOROVOD_TIMELINE") == "/var/tmp/tl.json");
  CHECK(env_of(from_file, "HOROVOD_STALL_CHECK_TIME_SECONDS") == "30");
  CHECK(env_of(from_file, "HOROVOD_LOG_LEVEL") == "debug");
  CHECK(env_of(from_file, "HOROVOD_CACHE_CAPACITY") == "1024");  // not in the file: default
  CHECK(from_file.at("settings_sources").size() == 2);

  // A flag wins wherever it stands relative to --config-file.
  const json flags = dry_run({"--fusion-threshold-mb", "32", "--config-file", file,
                              "--log-level", "ERROR", "--no-stall-check"});
  CHECK(env_of(flags, "HOROVOD_FUSION_THRESHOLD") == "33554432");
  CHECK(env_of(flags, "HOROVOD_CYCLE_TIME") == "5");
  CHECK(env_of(flags, "HOROVOD_LOG_LEVEL") == "error");
  CHECK(env_of(flags, "HOROVOD_STALL_CHECK_DISABLE") == "1");
}

TEST_CASE("launcher settings in the config file: tag_output, with --tag-output winning") {
  TempDir dir;
  const std::string file = write_file(dir, "quiet.yaml", "launcher:\n  tag_output: false\n");
  const ProcessResult plain =
      run(hvdrun({"-np", "1", "--config-file", file, "--", "/bin/echo", "hi"}));
  CHECK(plain.out == "hi\n");
  const ProcessResult tagged = run(
      hvdrun({"-np", "1", "--config-file", file, "--tag-output", "--", "/bin/echo", "hi"}));
  CHECK(tagged.out == "[0]<stdout>:hi\n");
}

TEST_CASE("--verify-every reaches the ranks as HVD_VERIFY_EVERY, only when asked for") {
  CHECK(env_of(dry_run({}), "HVD_VERIFY_EVERY") == "<unset>");
  const json flag = dry_run({"--verify-every", "100"});
  CHECK(env_of(flag, "HVD_VERIFY_EVERY") == "100");
  CHECK(flag.at("settings").at("params").at("verify_every") == 100);
  TempDir dir;
  const std::string file = write_file(dir, "run.yaml", "params:\n  verify_every: 7\n");
  CHECK(env_of(dry_run({"--config-file", file}), "HVD_VERIFY_EVERY") == "7");
  SUBCASE("exported before hvdrun, it is a setting of its own, and a bad one is refused") {
    const ProcessResult ok = run(hvdrun({"-np", "1", "--dry-run", "--", "/bin/true"}),
                                 {{"HVD_VERIFY_EVERY", "20"}});
    REQUIRE_MESSAGE(ok.exit_code == 0, ok.err);
    CHECK(json::parse(ok.out).at("settings").at("params").at("verify_every") == 20);
    const ProcessResult bad = run(hvdrun({"-np", "1", "--dry-run", "--", "/bin/true"}),
                                  {{"HVD_VERIFY_EVERY", "2.5"}});
    CHECK(bad.exit_code == 3);
    CHECK(only_line(bad.err) ==
          "hvdrun: error: environment: HVD_VERIFY_EVERY='2.5' is not a whole number of optimizer "
          "steps >= 0; fix or unset it");
  }
}
