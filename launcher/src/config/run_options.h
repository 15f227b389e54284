// SPDX-License-Identifier: Apache-2.0
#pragma once
// RunOptions: the command line as given, before any merging. An unset std::optional means
// "not on the command line", so lower layers (config file, defaults) can supply the value.

#include <optional>
#include <string>
#include <vector>

namespace hvd::launcher::config {

/// The most ranks hvdrun starts: above the largest machines' GPU counts (Frontier ~75k GCDs,
/// Aurora ~128k tiles), and low enough that the plan (about 14 KB per rank, linear: -np 65536
/// --dry-run peaks at 0.9 GB, 262144 at 3.7 GB) fits a login node. `-np 2147483647 --dry-run`
/// used to end in bad_alloc (exit 70).
inline constexpr int kMaxRanks = 1 << 17;

struct RunOptions {
  std::optional<int> num_proc;
  // torchrun's spelling of the job's shape (config/torchrun_shape.h): ranks per node, and
  // inside Slurm the number of nodes.
  std::optional<int> nproc_per_node;
  std::optional<int> nnodes;
  std::string hosts;  // -H
  std::string hostfile;
  std::string config_file;
  std::string output_filename;
  bool dry_run = false;
  bool check_build = false;
  bool json = false;
  bool verbose = false;

  // Where the ranks run: "auto" (inside a Slurm job: srun; otherwise this machine), "local"
  // or "slurm".
  std::string launcher = "auto";
  std::string profile;                 // --profile NAME or PATH; empty = detect
  std::vector<std::string> srun_args;  // --srun-arg, passed to srun as they are
  // --mpi: the program uses MPI. On this machine mpirun starts the ranks; inside Slurm srun
  // gets the profile's --mpi=PLUGIN. Without it hvdrun starts the ranks itself, and srun gets no
  // --mpi flag (Slurm's MpiDefault applies).
  bool mpi = false;
  bool tf_config = false;  // --tf-config: set TF_CONFIG for every rank

  // Launcher settings.
  std::optional<bool> tag_output;
  std::optional<int> kill_grace_seconds;
  std::optional<int> max_restarts;  // --max-restarts (torchrun's name)
  std::optional<std::string> bind_to;
  std::optional<bool> horovod_compat;  // --horovod-compat
  std::optional<int> checkpoint_grace_seconds;  // --checkpoint-grace-seconds
  std::optional<bool> requeue_on_signal;        // --requeue-on-signal
  std::optional<int> idle_timeout_seconds;      // --idle-timeout

  // Runtime tunables (horovodrun's flags).
  std::optional<double> fusion_threshold_mb;
  std::optional<double> cycle_time_ms;
  std::optional<int> cache_capacity;
  std::optional<bool> hierarchical_allreduce;
  std::optional<std::string> timeline_filename;
  std::optional<bool> timeline_mark_cycles;
  std::optional<bool> stall_check;
  std::optional<double> stall_warning_seconds;
  std::optional<double> stall_shutdown_seconds;
  std::optional<std::string> log_level;
  std::optional<int> verify_every;  // --verify-every

  std::vector<std::string> command;  // PROGRAM ARGS...
};

}  // namespace hvd::launcher::config
