// SPDX-License-Identifier: Apache-2.0
#include "config/tunables.h"

#include <doctest/doctest.h>

#include <limits>
#include <string>

#include "config/yaml_file.h"
#include "hvd/error.h"

namespace config = hvd::launcher::config;

namespace {
config::Settings apply(const std::string& text) {
  config::Settings s;
  config::apply_yaml(s, config::load_yaml_text(text, "t.yaml"), "t.yaml");
  return s;
}
std::string error_of(const std::string& text) {
  try {
    apply(text);
  } catch (const hvd::ConfigError& e) {
    return e.what();
  }
  return "no error";
}
}  // namespace

TEST_CASE("tunables: configs/defaults.yaml says the same as the built-in values") {
  config::Settings from_file;
  const std::string path = std::string(HVD_SOURCE_DIR) + "/configs/defaults.yaml";
  config::apply_yaml(from_file, config::load_yaml_file(path), path);
  CHECK(config::to_json(from_file) == config::to_json(config::Settings{}));
}

TEST_CASE("tunables: horovodrun's sections map to HOROVOD_* in Horovod's units") {
  const config::Settings s = apply(
      "params: {fusion_threshold_mb: 0.5, cycle_time_ms: 2.5, cache_capacity: 0,"
      " hierarchical_allreduce: true}\n"
      "timeline: {filename: t.json, mark_cycles: true}\n"
      "stall_check: {enabled: false, warning_time_seconds: 5, shutdown_time_seconds: 9}\n"
      "logging: {level: info}\n");
  const auto env = config::tunables_env(s.tunables);
  CHECK(env.at("HOROVOD_FUSION_THRESHOLD") == "524288");
  CHECK(env.at("HOROVOD_CYCLE_TIME") == "2.500000");
  CHECK(env.at("HOROVOD_CACHE_CAPACITY") == "0");
  CHECK(env.at("HOROVOD_HIERARCHICAL_ALLREDUCE") == "1");
  CHECK(env.at("HOROVOD_TIMELINE") == "t.json");
  CHECK(env.at("HOROVOD_TIMELINE_MARK_CYCLES") == "1");
  CHECK(env.at("HOROVOD_STALL_CHECK_DISABLE") == "1");
  CHECK(env.at("HOROVOD_STALL_CHECK_TIME_SECONDS") == "5");
  CHECK(env.at("HOROVOD_STALL_SHUTDOWN_TIME_SECONDS") == "9");
  CHECK(env.at("HOROVOD_LOG_LEVEL") == "info");
  CHECK(config::tunables_env(config::Tunables{}).count("HOROVOD_TIMELINE") == 0);
}

TEST_CASE("tunables: errors name the file, line, column and key") {
  CHECK(error_of("params:\n  cache_capacity: x\n") ==
        "t.yaml:2:19: params.cache_capacity: expected an integer, got 'x'");
  CHECK(error_of("params:\n  nope: 1\n").rfind("t.yaml:2:3: unknown key 'params.nope'", 0) == 0);
  CHECK(error_of("autotune: {enabled: true}\n").find("unknown key 'autotune'") !=
        std::string::npos);
  CHECK(error_of("logging:\n  level: loud\n").find("logging.level: 'loud'") != std::string::npos);
  CHECK(error_of("launcher:\n  bind_to: socket\n").find("launcher.bind_to") != std::string::npos);
  CHECK(error_of("params: 3\n").find("params must be a mapping") != std::string::npos);
  CHECK(error_of("- a\n- b\n").find("the file must be a mapping") != std::string::npos);
  CHECK(error_of("").find("no error") == 0);  // an empty file changes nothing
  CHECK_THROWS_AS(config::load_yaml_text("a: [1\n", "bad.yaml"), hvd::ConfigError);
}

TEST_CASE("tunables: a second YAML document is refused, not ignored") {
  // The error names where the second document begins: its '---'.
  CHECK(error_of("params:\n  cache_capacity: 8\n---\nparams:\n  cache_capacity: x\n")
            .rfind("t.yaml:3:1: only one YAML document is allowed", 0) == 0);
  CHECK(error_of("logging: {level: info}\n--- 3\n")
            .rfind("t.yaml:2:1: only one YAML document is allowed", 0) == 0);
  SUBCASE("stray text that yaml-cpp reads as endless empty documents ends too (fuzz finding)") {
    // yaml-cpp 0.7's parser returned one empty document after another for this without
    // consuming the ',': LoadAll never returned.
    CHECK(error_of("# a comment 1# another\n, w# co").find("only one YAML document") !=
          std::string::npos);
  }
  SUBCASE("an empty second document counts too") {
    CHECK(error_of("logging: {level: info}\n---\n").find("only one YAML document") !=
          std::string::npos);
  }
  SUBCASE("one document, with or without its markers, is fine") {
    CHECK(error_of("---\nlogging: {level: info}\n...\n") == "no error");
    CHECK(error_of("# nothing but a comment\n") == "no error");
  }
}

TEST_CASE("tunables: out-of-range values are refused") {
  config::Settings s;
  s.tunables.cycle_time_ms = 0;
  CHECK_THROWS_WITH_AS(config::validate(s, "x.yaml"),
                       "x.yaml: cycle time must be > 0 ms (params.cycle_time_ms)",
                       hvd::ConfigError);
  s = {};
  s.launcher.kill_grace_seconds = -1;
  CHECK_THROWS_AS(config::validate(s, "x.yaml"), hvd::ConfigError);
  s = {};
  s.launcher.checkpoint_grace_seconds = -1;
  CHECK_THROWS_WITH_AS(config::validate(s, "x.yaml"),
                       "x.yaml: checkpoint grace must be >= 0 seconds "
                       "(launcher.checkpoint_grace_seconds)",
                       hvd::ConfigError);
}

TEST_CASE("tunables: a bad value in a config file names its line and key") {
  // Checked while the file's line is known, not after merging (which only knew the file).
  CHECK(error_of("launcher:\n  max_restarts: -2\n") ==
        "t.yaml:2:17: launcher.max_restarts: max restarts must be >= 0, got '-2'");
  CHECK(error_of("params:\n  cycle_time_ms: .inf\n") ==
        "t.yaml:2:18: params.cycle_time_ms: cycle time must be > 0 ms, got '.inf'");
}

TEST_CASE("tunables: a bad flag is a usage error naming the flag") {
  config::Settings s;
  s.launcher.kill_grace_seconds = -5;
  CHECK_THROWS_WITH_AS(config::validate(s, "command line"),
                       "--kill-grace-seconds: kill grace must be >= 0 seconds", hvd::UsageError);
  s = {};
  s.tunables.cycle_time_ms = std::numeric_limits<double>::infinity();
  CHECK_THROWS_WITH_AS(config::validate(s, "command line"),
                       "--cycle-time-ms: cycle time must be > 0 ms", hvd::UsageError);
  s = {};
  s.tunables.log_level = "loud";  // --log-level took any word, and the ranks got it
  CHECK_THROWS_WITH_AS(
      config::validate(s, "command line"),
      "--log-level: log level 'loud' is not one of trace, debug, info, warning, error, fatal",
      hvd::UsageError);
  s.tunables.log_level = "INFO";  // HOROVOD_LOG_LEVEL=INFO is how many export it
  CHECK_NOTHROW(config::validate(s, "environment"));
}

TEST_CASE("tunables: the preemption settings of the launcher section") {
  const config::Settings s =
      apply("launcher:\n  requeue_on_signal: true\n  checkpoint_grace_seconds: 30\n");
  CHECK(s.launcher.requeue_on_signal);
  CHECK(s.launcher.checkpoint_grace_seconds == 30);
  CHECK_FALSE(config::Settings{}.launcher.requeue_on_signal);  // off unless asked for
}

TEST_CASE("tunables: idle timeout and verify interval, off by default, never negative") {
  const config::Settings s = apply("launcher:\n  idle_timeout_seconds: 600\n"
                                   "params:\n  verify_every: 100\n");
  CHECK(s.launcher.idle_timeout_seconds == 600);
  CHECK(s.tunables.verify_every == 100);
  CHECK(config::tunables_env(s.tunables).at("HVD_VERIFY_EVERY") == "100");
  const config::Settings off{};
  CHECK(off.launcher.idle_timeout_seconds == 0);
  CHECK(config::tunables_env(off.tunables).count("HVD_VERIFY_EVERY") == 0);
  CHECK(error_of("launcher:\n  idle_timeout_seconds: -1\n") ==
        "t.yaml:2:25: launcher.idle_timeout_seconds: idle timeout must be >= 0 seconds, got '-1'");
  config::Settings bad;
  bad.tunables.verify_every = -3;
  CHECK_THROWS_WITH_AS(config::validate(bad, "command line"),
                       "--verify-every: verify interval must be >= 0 optimizer steps",
                       hvd::UsageError);
}

// Issue 10: aliases can nest into exponential expansion; configs refuse them as profiles do.
TEST_CASE("tunables: YAML anchors and aliases are refused with file, line and column") {
  CHECK(error_of("params: &p {cache_capacity: 8}\nlogging: *p\n") ==
        "t.yaml:1:9: an anchor (&name): YAML anchors and aliases are not allowed in hvdrun's "
        "files; write the value out where it is used");
  // An alias needs an anchor before it, so the anchor is what is reported; an alias to no anchor
  // is malformed YAML.
  CHECK(error_of("params:\n  cache_capacity: *n\n").rfind("t.yaml:2:19: malformed YAML", 0) == 0);
}

TEST_CASE("tunables: bytes that are not UTF-8 are refused at the first bad byte") {
  // fuzz/config_yaml: this file's filename once reached the dry-run JSON and threw there (exit
  // 70); a profile with such bytes made yaml-cpp spin for minutes.
  CHECK(error_of("timeline:\n  filename: /tmp/t.j\xff\xffn\n") ==
        "t.yaml:2:21: not UTF-8 text (byte 255); save the file as UTF-8");
  CHECK(error_of("logging:\n  level: \xea" "ogin\n").rfind("t.yaml:2:10: not UTF-8", 0) == 0);
  CHECK(error_of("logging:\n  level: \xc0\xaf\n").rfind("t.yaml:2:10: not UTF-8", 0) == 0);
  // Real UTF-8 is fine (it then fails as an unknown level, not as bad text).
  CHECK(error_of("logging:\n  level: d\xc3\xa9" "bug\n").find("not UTF-8") == std::string::npos);
}
