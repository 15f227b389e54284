// SPDX-License-Identifier: Apache-2.0
#include "config/tunables_from_env.h"

#include <cmath>
#include <cstdlib>
#include <string>

#include "hvd/env_keys.h"
#include "hvd/error.h"

namespace hvd::launcher::config {
namespace {

// The value of `key`, or null when it is unset or empty (VAR= counts as unset, config/env_map.h),
// so that `export HOROVOD_CYCLE_TIME=` clears a setting instead of failing or overriding a
// profile with an empty value.
const std::string* find(const EnvMap& env, const char* key) {
  return env_has(env, key) ? &env.at(key) : nullptr;
}

double number(const char* key, const std::string& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size()) {
    throw ConfigError(
        str_cat("environment: ", key, "='", text, "' is not a number; fix or unset ", "it"));
  }
  return v;
}

constexpr double kMaxVerifyEvery = 1e9;  // fits an int; no run has more steps

bool flag(const char* key, const std::string& text) {
  if (text == "1" || text == "true" || text == "yes") return true;
  if (text == "0" || text == "false" || text == "no") return false;
  throw ConfigError(str_cat("environment: ", key, "='", text, "' is not 0 or 1; fix or unset it"));
}

}  // namespace

void apply_environment(Tunables& t, const EnvMap& env) {
  if (auto v = find(env, env::kFusionThreshold)) {
    t.fusion_threshold_mb = number(env::kFusionThreshold, *v) / (1024.0 * 1024.0);
  }
  if (auto v = find(env, env::kCycleTime)) t.cycle_time_ms = number(env::kCycleTime, *v);
  if (auto v = find(env, env::kCacheCapacity)) {
    t.cache_capacity = static_cast<int>(number(env::kCacheCapacity, *v));
  }
  if (auto v = find(env, env::kHierarchicalAllreduce)) {
    t.hierarchical_allreduce = flag(env::kHierarchicalAllreduce, *v);
  }
  // DYNAMIC (Horovod's "start_timeline() at run time") is no file for hvdrun to merge.
  if (auto v = find(env, env::kTimeline); v && *v != env::kTimelineDynamic) {
    t.timeline_filename = *v;
  }
  if (auto v = find(env, env::kTimelineMarkCycles)) {
    t.timeline_mark_cycles = flag(env::kTimelineMarkCycles, *v);
  }
  if (auto v = find(env, env::kStallCheckDisable)) {
    t.stall_check_enabled = !flag(env::kStallCheckDisable, *v);
  }
  if (auto v = find(env, env::kStallCheckTime)) {
    t.stall_warning_seconds = number(env::kStallCheckTime, *v);
  }
  if (auto v = find(env, env::kStallShutdownTime)) {
    t.stall_shutdown_seconds = number(env::kStallShutdownTime, *v);
  }
  if (auto v = find(env, env::kLogLevel)) t.log_level = *v;
  if (auto v = find(env, env::kVerifyEvery)) {
    const double every = number(env::kVerifyEvery, *v);
    // The ranks read it as a whole number: refuse here what they would refuse later.
    if (!(every >= 0 && every <= kMaxVerifyEvery) || std::floor(every) != every) {
      throw ConfigError(str_cat("environment: ", env::kVerifyEvery, "='", *v,
                                "' is not a whole number of optimizer steps >= 0; fix or unset it"));
    }
    t.verify_every = static_cast<int>(every);
  }
}

}  // namespace hvd::launcher::config
