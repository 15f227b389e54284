// SPDX-License-Identifier: Apache-2.0
#include "config/tunables.h"

#include <array>
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

void apply_params(Tunables& t, const YAML::Node& node, const std::string& file) {
  check_keys(file, node, "params",
             {"fusion_threshold_mb", "cycle_time_ms", "cache_capacity", "hierarchical_allreduce"});
  if (auto n = node["fusion_threshold_mb"]) {
    t.fusion_threshold_mb = as_double(file, n, "params.fusion_threshold_mb");
  }
  if (auto n = node["cycle_time_ms"]) t.cycle_time_ms = as_double(file, n, "params.cycle_time_ms");
  if (auto n = node["cache_capacity"]) t.cache_capacity = as_int(file, n, "params.cache_capacity");
  if (auto n = node["hierarchical_allreduce"]) {
    t.hierarchical_allreduce = as_bool(file, n, "params.hierarchical_allreduce");
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
    t.stall_warning_seconds = as_double(file, n, "stall_check.warning_time_seconds");
  }
  if (auto n = node["shutdown_time_seconds"]) {
    t.stall_shutdown_seconds = as_double(file, n, "stall_check.shutdown_time_seconds");
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
                                           "requeue_on_signal"});
  if (auto n = node["kill_grace_seconds"]) {
    l.kill_grace_seconds = as_int(file, n, "launcher.kill_grace_seconds");
  }
  if (auto n = node["max_restarts"]) l.max_restarts = as_int(file, n, "launcher.max_restarts");
  if (auto n = node["checkpoint_grace_seconds"]) {
    l.checkpoint_grace_seconds = as_int(file, n, "launcher.checkpoint_grace_seconds");
  }
  if (auto n = node["requeue_on_signal"]) {
    l.requeue_on_signal = as_bool(file, n, "launcher.requeue_on_signal");
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
  auto fail = [&](const std::string& what) { throw ConfigError(str_cat(origin, ": ", what)); };
  if (!(t.fusion_threshold_mb >= 0)) fail("fusion threshold must be >= 0 MB");
  if (!(t.cycle_time_ms > 0)) fail("cycle time must be > 0 ms");
  if (t.cache_capacity < 0) fail("cache capacity must be >= 0");
  if (!(t.stall_warning_seconds > 0)) fail("stall check warning time must be > 0 seconds");
  if (!(t.stall_shutdown_seconds >= 0)) fail("stall check shutdown time must be >= 0 seconds");
  if (s.launcher.kill_grace_seconds < 0) fail("kill grace must be >= 0 seconds");
  if (s.launcher.max_restarts < 0) fail("max restarts must be >= 0");
  if (s.launcher.checkpoint_grace_seconds < 0) fail("checkpoint grace must be >= 0 seconds");
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
  return env;
}

nlohmann::json to_json(const Settings& s) {
  const Tunables& t = s.tunables;
  return {
      {"params",
       {{"fusion_threshold_mb", t.fusion_threshold_mb},
        {"cycle_time_ms", t.cycle_time_ms},
        {"cache_capacity", t.cache_capacity},
        {"hierarchical_allreduce", t.hierarchical_allreduce}}},
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
        {"requeue_on_signal", s.launcher.requeue_on_signal}}},
  };
}

}  // namespace hvd::launcher::config
