// SPDX-License-Identifier: Apache-2.0
#include "config/settings_layers.h"

#include <filesystem>

#include "config/tunables_from_env.h"
#include "config/yaml_file.h"
#include "hvd/error.h"

namespace hvd::launcher::config {
namespace {

template <typename T>
void take(T& target, const std::optional<T>& flag) {
  if (flag) target = *flag;
}

}  // namespace

Settings resolve_settings(const RunOptions& opts, const std::string& defaults_path,
                          std::vector<std::string>& sources, const EnvMap& env) {
  Settings settings;
  std::error_code ec;
  if (!defaults_path.empty() && std::filesystem::exists(defaults_path, ec)) {
    apply_yaml(settings, load_yaml_file(defaults_path), defaults_path);
    validate(settings, defaults_path);
    sources.push_back(defaults_path);
  }
  apply_environment(settings.tunables, env);
  validate(settings, "environment");
  if (!opts.config_file.empty()) {
    apply_yaml(settings, load_yaml_file(opts.config_file), opts.config_file);
    validate(settings, opts.config_file);
    sources.push_back(opts.config_file);
  }
  apply_flags(settings, opts);
  validate(settings, "command line");
  return settings;
}

void apply_flags(Settings& settings, const RunOptions& opts) {
  Tunables& t = settings.tunables;
  take(t.fusion_threshold_mb, opts.fusion_threshold_mb);
  take(t.cycle_time_ms, opts.cycle_time_ms);
  take(t.cache_capacity, opts.cache_capacity);
  take(t.hierarchical_allreduce, opts.hierarchical_allreduce);
  take(t.timeline_filename, opts.timeline_filename);
  take(t.timeline_mark_cycles, opts.timeline_mark_cycles);
  take(t.stall_check_enabled, opts.stall_check);
  take(t.stall_warning_seconds, opts.stall_warning_seconds);
  take(t.stall_shutdown_seconds, opts.stall_shutdown_seconds);
  take(t.log_level, opts.log_level);
  take(t.verify_every, opts.verify_every);
  take(settings.launcher.tag_output, opts.tag_output);
  take(settings.launcher.kill_grace_seconds, opts.kill_grace_seconds);
  take(settings.launcher.max_restarts, opts.max_restarts);
  take(settings.launcher.bind_to, opts.bind_to);
  take(settings.launcher.horovod_compat, opts.horovod_compat);
  take(settings.launcher.checkpoint_grace_seconds, opts.checkpoint_grace_seconds);
  take(settings.launcher.requeue_on_signal, opts.requeue_on_signal);
  take(settings.launcher.idle_timeout_seconds, opts.idle_timeout_seconds);
}

}  // namespace hvd::launcher::config
