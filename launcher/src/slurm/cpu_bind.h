// SPDX-License-Identifier: Apache-2.0
#pragma once
// What srun's --cpu-bind gives one task, in words a batch script can show before the job runs.
// Only the explicit forms name CPUs (mask_cpu, map_cpu, mask_ldom, map_ldom); for the others
// (cores, threads, sockets, ldoms, rank, none) Slurm picks the CPUs when the task starts.

#include <string>

namespace hvd::launcher::slurm {

/// The CPUs (or NUMA domains) task `local_rank` of a node gets from `--cpu-bind=VALUE`, with
/// `cpus_per_task` from --cpus-per-task (0: not given): "49-55", "NUMA domain 3", "7 CPUs,
/// bound to cores by Slurm", "not bound". Lists repeat for more tasks than entries, as Slurm's
/// do. Throws ConfigError for a mask or map that does not parse.
std::string describe_cpu_bind(const std::string& value, int local_rank, int cpus_per_task);

}  // namespace hvd::launcher::slurm
