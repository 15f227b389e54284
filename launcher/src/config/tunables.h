// SPDX-License-Identifier: Apache-2.0
#pragma once
// Settings: the runtime's tunables (horovodrun's --config-file sections, same names and units)
// and the launcher's own defaults. Built-in values < configs/defaults.yaml < HOROVOD_* in the
// environment < --config-file < command line; each layer is applied on top of the previous one.

#include <map>
#include <string>

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

namespace hvd::launcher::config {

/// What libhvd (and Horovod) read from the HOROVOD_* variables.
struct Tunables {
  double fusion_threshold_mb = 128;  // params.fusion_threshold_mb
  double cycle_time_ms = 1;          // params.cycle_time_ms
  int cache_capacity = 1024;         // params.cache_capacity
  bool hierarchical_allreduce = false;
  std::string timeline_filename;     // timeline.filename; empty = no timeline
  bool timeline_mark_cycles = false;
  bool stall_check_enabled = true;
  double stall_warning_seconds = 60;
  // hvdrun stops a job whose stall verdict stood this long (exec/why_service.h); 0 = never,
  // Horovod's default. libhvd alone (without hvdrun) keeps HOROVOD_STALL_SHUTDOWN's 0.
  double stall_shutdown_seconds = 600;
  std::string log_level = "warning";
  // Not Horovod's: every this many optimizer steps the ranks compare their parameters
  // (HVD_VERIFY_EVERY, read by hvdrun.torch and hvd-train); 0 = never.
  int verify_every = 0;
};

/// The launcher's own knobs (section `launcher:`).
struct LauncherSettings {
  int kill_grace_seconds = 10;  // SIGTERM -> SIGKILL grace when a rank fails
  // Times a failed job is stopped and started again from a new rendezvous (torchrun's
  // --max-restarts); 0: the first failure ends it.
  int max_restarts = 0;
  bool tag_output = true;
  std::string bind_to = "auto";
  // Put a `horovod` package (re-exporting hvdrun.torch) on the ranks' PYTHONPATH, so that
  // `import horovod.torch as hvd` runs unchanged. Off by default: a real Horovod stays visible.
  bool horovod_compat = false;
  // Preemption (exec/requeue.h): after SIGUSR1/SIGUSR2 the ranks get this long to checkpoint and
  // exit before SIGTERM; with requeue_on_signal, a job whose ranks all exit 0 after the notice
  // is requeued with `scontrol requeue`.
  int checkpoint_grace_seconds = 60;
  bool requeue_on_signal = false;
  // Stop the job when no rank has written a byte of output for this long (for programs that
  // never call libhvd, whose stall check cannot see them); 0 = never.
  int idle_timeout_seconds = 0;
};

struct Settings {
  Tunables tunables;
  LauncherSettings launcher;
};

/// Applies a parsed config document on top of `settings`. `file` names it in errors.
/// Throws ConfigError (with file:line:col) for an unknown key, a wrong type or a bad value.
void apply_yaml(Settings& settings, const YAML::Node& root, const std::string& file);

/// Throws ConfigError naming `origin` when a value is out of range.
void validate(const Settings& settings, const std::string& origin);

/// The HOROVOD_* variables for the tunables (Horovod's names and units: bytes, ms).
std::map<std::string, std::string> tunables_env(const Tunables& tunables);

nlohmann::json to_json(const Settings& settings);

}  // namespace hvd::launcher::config
