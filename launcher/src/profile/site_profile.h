// SPDX-License-Identifier: Apache-2.0
#pragma once
// SiteProfile: what hvdrun knows about one system, from site-profiles/NAME.yaml (schema in
// site-profiles/README.md). A plain value; loading, `extends:` merging and validation live in
// profile_loader.h, search and detection in profile_catalog.h.

#include <string>
#include <vector>

namespace hvd::launcher::profile {

/// One environment variable the site needs, with the reason it is set (written as a comment
/// into batch scripts) and whether the value is confirmed by the site's documentation.
struct EnvVar {
  std::string name;
  std::string value;
  std::string reason;
  bool confirmed = true;
};

/// An extra #SBATCH line the site requires (e.g. Neuron's --comment=...).
struct Directive {
  std::string flag;  // e.g. "--comment=pytorch"
  std::string reason;
};

struct Partition {
  std::string name;
  std::string max_walltime;  // Slurm time format ("2-00:00:00", "48:00:00"); empty = unknown
  int max_nodes = 0;         // 0 = unknown
  int gpus_per_node = -1;    // -1 = as the node section says
};

struct SiteProfile {
  std::string name;
  std::string description;
  std::string source;                     // the file it came from; empty for the embedded one
  std::vector<std::string> sources;       // all files merged through extends:, child last

  // detect:
  std::vector<std::string> cluster_names;      // matched against SLURM_CLUSTER_NAME
  std::vector<std::string> hostname_patterns;  // ECMAScript regexes, full match on the hostname

  // scheduler:
  bool account_required = false;
  std::string partition;       // default partition; empty = the cluster's default
  std::string qos;
  std::string constraint;
  /// How to ask for GPUs per node, with {gpus} (and {gpu_type}) placeholders, e.g.
  /// "--gpus-per-node={gpus}", "--gres=gpu:{gpus}", "--gpus-per-node={gpu_type}:{gpus}".
  std::string gpu_request = "--gpus-per-node={gpus}";
  std::string gpu_type;        // for {gpu_type}; empty when not used
  std::vector<Directive> directives;
  std::string max_walltime;    // profile-wide limit; a partition's own wins
  std::vector<Partition> partitions;

  // node:
  int gpus_per_node = 0;
  std::string gpu_vendor = "none";     // nvidia, amd or none
  std::string gpu_model;
  int cores_per_node = 0;              // 0 = unknown
  int numa_domains = 1;
  std::vector<int> gpu_numa;           // NUMA domain of GPU i; empty or gpus_per_node entries
  std::vector<std::string> gpu_cpus;   // CPU list near GPU i ("48-63,112-127"); same rule
  std::vector<std::string> nics;

  // binding:
  std::string gpu_env = "CUDA_VISIBLE_DEVICES";  // ROCR_VISIBLE_DEVICES on AMD
  std::vector<int> gpu_order;          // local rank i gets GPU gpu_order[i]; empty = identity
  int ranks_per_node = 0;              // 0 = gpus_per_node, or 1 without GPUs
  int cpus_per_task = 0;               // 0 = not passed
  std::string cpu_bind;                // srun --cpu-bind value; empty = not passed
  std::string gpu_bind;                // srun --gpu-bind value; empty = not passed

  // launch:
  std::string mpi;                     // srun --mpi value for hvdrun --mpi; empty = MpiDefault
  std::vector<std::string> srun_args;  // extra srun flags the site needs
  /// Where the NCCL/RCCL network plugin comes from when the site's own setup provides it (e.g.
  /// "the uenv's libnccl-net.so"); empty = not provided. Satisfies guard nccl_net_needs_plugin.
  std::string net_plugin;

  // setup:
  std::vector<std::string> modules;    // `module load` each, in order
  /// Words put before the command, each one argument: {"apptainer", "exec", "--nv", "X.sif"}.
  std::vector<std::string> container;
  std::vector<std::string> setup_commands;  // shell lines run before launching

  std::vector<EnvVar> env;

  // rendezvous:
  /// MASTER_PORT base; the port is base + (job id % 10000) so concurrent jobs on shared nodes
  /// do not collide. 0 = hvdrun's default base.
  int master_port_base = 0;

  /// Named checks hvdrun enforces for this site (see profile_guards.h), e.g.
  /// "no_gpus_per_task", "nccl_net_needs_plugin".
  std::vector<std::string> guards;

  /// Ranks per node when the user does not say.
  int default_ranks_per_node() const {
    if (ranks_per_node > 0) return ranks_per_node;
    return gpus_per_node > 0 ? gpus_per_node : 1;
  }
};

}  // namespace hvd::launcher::profile
