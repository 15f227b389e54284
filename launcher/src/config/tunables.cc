// SPDX-License-Identifier: Apache-2.0
#include "config/tunables.h"

#include <array>
#include <cctype>
#include <cmath>
#include <string_view>

#include "config/yaml_file.h"
#include "hvd/env_keys.h"
#include "hvd/error.h"

namespace hvd::launcher::config {
namespace {

constexpr std::array<std::string_view, 6> kLogLevels = {"trace", "debug", "info",
                                                         "warning", "error", "fatal"};
constexpr std::array<std::string_view, 4> kBindPolicies = {"auto", "core", "numa", "none"};

template <size_t N>
bool one_of(const std::string& value, const std::array<std::string_view, N>& allowed) {
  for (std::string_view a : allowed) {
    if (value == a) return true;
  }
  return false;
}

// One bound on a number, with every name it goes by, so that the error names the one the user
// wrote: the config file's key, the HOROVOD_* variable or the flag.
struct Bound {
  const char* what;
  const char* key;   // in a config file
  const char* env;   // nullptr: no variable sets it
  const char* flag;
  bool zero_ok;      // >= 0 rather than > 0
  const char* unit;
};

constexpr Bound kFusionBound{"fusion threshold", "params.fusion_threshold_mb",
                             env::kFusionThreshold, "--fusion-threshold-mb", true, " MB"};
constexpr Bound kCycleBound{"cycle time", "params.cycle_time_ms", env::kCycleTime,
                            "--cycle-time-ms", false, " ms"};
constexpr Bound kCacheBound{"cache capacity", "params.cache_capacity", env::kCacheCapacity,
                            "--cache-capacity", true, ""};
constexpr Bound kStallWarningBound{"stall check warning time", "stall_check.warning_time_seconds",
                                   env::kStallCheckTime, "--stall-check-warning-time-seconds",
                                   false, " seconds"};
constexpr Bound kStallShutdownBound{"stall check shutdown time",
                                    "stall_check.shutdown_time_seconds", env::kStallShutdownTime,
                                    "--stall-check-shutdown-time-seconds", true, " seconds"};
constexpr Bound kKillGraceBound{"kill grace", "launcher.kill_grace_seconds", nullptr,
                                "--kill-grace-seconds", true, " seconds"};
constexpr Bound kMaxRestartsBound{"max restarts", "launcher.max_restarts", nullptr,
                                  "--max-restarts", true, ""};
constexpr Bound kVerifyEveryBound{"verify interval", "params.verify_every", env::kVerifyEvery,
                                  "--verify-every", true, " optimizer steps"};
constexpr Bound kIdleTimeoutBound{"idle timeout", "launcher.idle_timeout_seconds", nullptr,
                                  "--idle-timeout", true, " seconds"};
constexpr Bound kCheckpointGraceBound{"checkpoint grace", "launcher.checkpoint_grace_seconds",
                                      nullptr, "--checkpoint-grace-seconds", true, " seconds"};

bool within(double v, const Bound& b) { return std::isfinite(v) && (b.zero_ok ? v >= 0 : v > 0); }

std::string rule(const Bound& b) {
  return str_cat(b.what, " must be ", b.zero_ok ? ">= 0" : "> 0", b.unit);
}

// A value read from a config file, checked where the file's line is still known.
double checked(double v, const Bound& b, const std::string& file, const YAML::Node& n) {
  if (!within(v, b)) {
    throw ConfigError(str_cat(where(file, n), ": ", b.key, ": ", rule(b), ", got '", n.Scalar(),
                              "'"));
  }
  return v;
}

bool is_log_level(std::string level) {
  for (char& c : level) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return one_of(level, kLogLevels);
}

void apply_params(Tunables& t, const YAML::Node& node, const std::string& file) {
  check_keys(file, node, "params",
             {"fusion_threshold_mb", "cycle_time_ms", "cache_capacity", "hierarchical_allreduce",
              "verify_every"});
  if (auto n = node["fusion_threshold_mb"]) {
    t.fusion_threshold_mb = checked(as_double(file, n, kFusionBound.key), kFusionBound, file, n);
  }
  if (auto n = node["cycle_time_ms"]) {
    t.cycle_time_ms = checked(as_double(file, n, kCycleBound.key), kCycleBound, file, n);
  }
  if (auto n = node["cache_capacity"]) {
    t.cache_capacity =
        static_cast<int>(checked(as_int(file, n, kCacheBound.key), kCacheBound, file, n));
  }
  if (auto n = node["hierarchical_allreduce"]) {
    t.hierarchical_allreduce = as_bool(file, n, "params.hierarchical_allreduce");
  }
  if (auto n = node["verify_every"]) {
    t.verify_every = static_cast<int>(
        checked(as_int(file, n, kVerifyEveryBound.key), kVerifyEveryBound, file, n));
  }
}

void apply_timeline(Tunables& t, const YAML::Node& node, const std::string& file) {
  check_keys(file, node, "timeline", {"filename", "mark_cycles"});
  if (auto n = node["filename"]) t.timeline_filename = as_string(file, n, "timeline.filename");
  if (auto n = node["mark_cycles"]) t.timeline_mark_cycles = as_bool(file, n, "timeline.mark_cycles");
}

void apply_stall_check(Tunables& t, const YAML::Node& node, const std::string& file) {
  check_keys(file, node, "stall_check",
             {"enabled", "warning_time_seconds", "shutdown_time_seconds"});
  if (auto n = node["enabled"]) t.stall_check_enabled = as_bool(file, n, "stall_check.enabled");
  if (auto n = node["warning_time_seconds"]) {
    t.stall_warning_seconds =
        checked(as_double(file, n, kStallWarningBound.key), kStallWarningBound, file, n);
  }
  if (auto n = node["shutdown_time_seconds"]) {
    t.stall_shutdown_seconds =
        checked(as_double(file, n, kStallShutdownBound.key), kStallShutdownBound, file, n);
  }
}

void apply_logging(Tunables& t, const YAML::Node& node, const std::string& file) {
  check_keys(file, node, "logging", {"level"});
  if (auto n = node["level"]) {
    t.log_level = as_string(file, n, "logging.level");
    if (!one_of(t.log_level, kLogLevels)) {
      throw ConfigError(str_cat(where(file, n), ": logging.level: '", t.log_level,
                                "' is not one of trace, debug, info, warning, error, fatal"));
    }
  }
}

void apply_launcher(LauncherSettings& l, const YAML::Node& node, const std::string& file) {
  check_keys(file, node, "launcher", {"kill_grace_seconds", "max_restarts", "tag_output",
                                           "bind_to", "horovod_compat", "checkpoint_grace_seconds",
                                           "requeue_on_signal", "idle_timeout_seconds"});
  if (auto n = node["kill_grace_seconds"]) {
    l.kill_grace_seconds =
        static_cast<int>(checked(as_int(file, n, kKillGraceBound.key), kKillGraceBound, file, n));
  }
  if (auto n = node["max_restarts"]) {
    l.max_restarts = static_cast<int>(
        checked(as_int(file, n, kMaxRestartsBound.key), kMaxRestartsBound, file, n));
  }
  if (auto n = node["checkpoint_grace_seconds"]) {
    l.checkpoint_grace_seconds = static_cast<int>(checked(
        as_int(file, n, kCheckpointGraceBound.key), kCheckpointGraceBound, file, n));
  }
  if (auto n = node["requeue_on_signal"]) {
    l.requeue_on_signal = as_bool(file, n, "launcher.requeue_on_signal");
  }
  if (auto n = node["idle_timeout_seconds"]) {
    l.idle_timeout_seconds = static_cast<int>(
        checked(as_int(file, n, kIdleTimeoutBound.key), kIdleTimeoutBound, file, n));
  }
  if (auto n = node["tag_output"]) l.tag_output = as_bool(file, n, "launcher.tag_output");
  if (auto n = node["horovod_compat"]) {
    l.horovod_compat = as_bool(file, n, "launcher.horovod_compat");
  }
  if (auto n = node["bind_to"]) {
    l.bind_to = as_string(file, n, "launcher.bind_to");
    if (!one_of(l.bind_to, kBindPolicies)) {
      throw ConfigError(str_cat(where(file, n), ": launcher.bind_to: '", l.bind_to,
                                "' is not one of auto, core, numa, none"));
    }
  }
}

std::string number_text(double v) {
  if (std::floor(v) == v && std::fabs(v) < 1e15) return std::to_string(static_cast<long long>(v));
  return std::to_string(v);
}

}  // namespace

void apply_yaml(Settings& settings, const YAML::Node& root, const std::string& file) {
  if (root.IsNull()) return;  // an empty file changes nothing
  check_keys(file, root, "", {"params", "timeline", "stall_check", "logging", "launcher"});
  if (auto n = root["params"]) apply_params(settings.tunables, n, file);
  if (auto n = root["timeline"]) apply_timeline(settings.tunables, n, file);
  if (auto n = root["stall_check"]) apply_stall_check(settings.tunables, n, file);
  if (auto n = root["logging"]) apply_logging(settings.tunables, n, file);
  if (auto n = root["launcher"]) apply_launcher(settings.launcher, n, file);
}

void validate(const Settings& s, const std::string& origin) {
  const Tunables& t = s.tunables;
  const bool from_env = origin == "environment";
  const bool from_flags = origin == "command line";
  // The setting by the name the user gave it; a bad flag is a usage error (exit 2).
  auto fail = [&](const Bound& b) {
    if (from_flags) throw UsageError(str_cat(b.flag, ": ", rule(b)));
    const std::string name = from_env ? (b.env != nullptr ? b.env : "") : b.key;
    throw ConfigError(str_cat(origin, ": ", rule(b), name.empty() ? "" : str_cat(" (", name, ")"),
                              from_env ? "; fix or unset it" : ""));
  };
  if (!within(t.fusion_threshold_mb, kFusionBound)) fail(kFusionBound);
  if (!within(t.cycle_time_ms, kCycleBound)) fail(kCycleBound);
  if (!within(t.cache_capacity, kCacheBound)) fail(kCacheBound);
  if (!within(t.stall_warning_seconds, kStallWarningBound)) fail(kStallWarningBound);
  if (!within(t.stall_shutdown_seconds, kStallShutdownBound)) fail(kStallShutdownBound);
  if (!within(s.launcher.kill_grace_seconds, kKillGraceBound)) fail(kKillGraceBound);
  if (!within(s.launcher.max_restarts, kMaxRestartsBound)) fail(kMaxRestartsBound);
  if (!within(s.launcher.checkpoint_grace_seconds, kCheckpointGraceBound)) {
    fail(kCheckpointGraceBound);
  }
  if (!within(t.verify_every, kVerifyEveryBound)) fail(kVerifyEveryBound);
  if (!within(s.launcher.idle_timeout_seconds, kIdleTimeoutBound)) fail(kIdleTimeoutBound);
  if (!is_log_level(t.log_level)) {
    const std::string text = str_cat("log level '", t.log_level,
                                     "' is not one of trace, debug, info, warning, error, fatal");
    if (from_flags) throw UsageError(str_cat("--log-level: ", text));
    throw ConfigError(
        str_cat(origin, ": ", text, from_env ? str_cat(" (", env::kLogLevel, ")") : ""));
  }
}

std::map<std::string, std::string> tunables_env(const Tunables& t) {
  std::map<std::string, std::string> env;
  const double bytes = std::floor(t.fusion_threshold_mb * 1024 * 1024);
  env[env::kFusionThreshold] = number_text(bytes);
  env[env::kCycleTime] = number_text(t.cycle_time_ms);
  env[env::kCacheCapacity] = std::to_string(t.cache_capacity);
  env[env::kHierarchicalAllreduce] = t.hierarchical_allreduce ? "1" : "0";
  if (!t.timeline_filename.empty()) {
    env[env::kTimeline] = t.timeline_filename;
    env[env::kTimelineMarkCycles] = t.timeline_mark_cycles ? "1" : "0";
  }
  env[env::kStallCheckDisable] = t.stall_check_enabled ? "0" : "1";
  env[env::kStallCheckTime] = number_text(t.stall_warning_seconds);
  env[env::kStallShutdownTime] = number_text(t.stall_shutdown_seconds);
  env[env::kLogLevel] = t.log_level;
  // Only when asked for: a HVD_VERIFY_EVERY the user exported reaches the ranks as it is.
  if (t.verify_every > 0) env[env::kVerifyEvery] = std::to_string(t.verify_every);
  return env;
}

nlohmann::json to_json(const Settings& s) {
  const Tunables& t = s.tunables;
  return {
      {"params",
       {{"fusion_threshold_mb", t.fusion_threshold_mb},
        {"cycle_time_ms", t.cycle_time_ms},
        {"cache_capacity", t.cache_capacity},
        {"hierarchical_allreduce", t.hierarchical_allreduce},
        {"verify_every", t.verify_every}}},
      {"timeline", {{"filename", t.timeline_filename}, {"mark_cycles", t.timeline_mark_cycles}}},
      {"stall_check",
       {{"enabled", t.stall_check_enabled},
        {"warning_time_seconds", t.stall_warning_seconds},
        {"shutdown_time_seconds", t.stall_shutdown_seconds}}},
      {"logging", {{"level", t.log_level}}},
      {"launcher",
       {{"kill_grace_seconds", s.launcher.kill_grace_seconds},
        {"max_restarts", s.launcher.max_restarts},
        {"tag_output", s.launcher.tag_output},
        {"bind_to", s.launcher.bind_to},
        {"horovod_compat", s.launcher.horovod_compat},
        {"checkpoint_grace_seconds", s.launcher.checkpoint_grace_seconds},
        {"requeue_on_signal", s.launcher.requeue_on_signal},
        {"idle_timeout_seconds", s.launcher.idle_timeout_seconds}}},
  };
}

}  // namespace hvd::launcher::config
