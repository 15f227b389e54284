// SPDX-License-Identifier: Apache-2.0
#include "config/launch_config.h"

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

std::vector<HostSlots> requested_hosts(const RunOptions& opts) {
  if (!opts.hosts.empty() && !opts.hostfile.empty()) {
    throw UsageError("-H and --hostfile are mutually exclusive; give one of them");
  }
  if (!opts.hosts.empty()) return parse_host_list(opts.hosts);
  if (!opts.hostfile.empty()) return parse_hostfile(opts.hostfile);
  return {};
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

LaunchConfig resolve_launch_config(const RunOptions& opts, const std::string& defaults_path,
                                   const std::set<std::string>& machine_names, const EnvMap& env) {
  LaunchConfig cfg;
  cfg.settings = resolve_settings(opts, defaults_path, cfg.sources, env);
  cfg.bind_to = binding::parse_bind_policy(cfg.settings.launcher.bind_to);

  if (opts.num_proc && *opts.num_proc < 1) {
    throw UsageError(str_cat("-np: must be at least 1, got ", *opts.num_proc));
  }
  const std::vector<HostSlots> hosts = requested_hosts(opts);
  const std::string origin = opts.hosts.empty() ? opts.hostfile : "-H";
  if (!hosts.empty()) {
    require_local_hosts(hosts, machine_names, origin);
    cfg.host = hosts.front();
    cfg.num_proc = opts.num_proc.value_or(cfg.host.slots);
    if (cfg.num_proc > cfg.host.slots) {
      throw UsageError(str_cat("-np ", cfg.num_proc, " is more than the ", cfg.host.slots,
                               " slots that ", origin, " gives; raise the slots or lower -np"));
    }
  } else {
    if (!opts.num_proc) {
      throw UsageError("-np is required: how many ranks to start (e.g. hvdrun -np 4 -- CMD)");
    }
    cfg.num_proc = *opts.num_proc;
    cfg.host = {"localhost", cfg.num_proc};
  }
  if (cfg.num_proc > kMaxRanks) {  // only -np can: -H and hostfile slots stop at 999999
    throw UsageError(
        str_cat("-np ", cfg.num_proc, ": hvdrun starts at most ", kMaxRanks, " ranks"));
  }

  if (opts.command.empty()) {
    throw UsageError("no program given: put it after the options, e.g. hvdrun -np 4 -- python3 train.py");
  }
  cfg.command = opts.command;
  cfg.output_dir = opts.output_filename;
  cfg.dry_run = opts.dry_run;
  return cfg;
}

}  // namespace hvd::launcher::config
