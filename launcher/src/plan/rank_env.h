// SPDX-License-Identifier: Apache-2.0
#pragma once
// The one rank identity: the variables a rank gets from hvdrun, whichever way it is started.
// Local ranks (plan/local_plan.cc), srun tasks (hvdrun exec-rank, and --dry-run predicting
// them) and, for the parts that are the same for every rank, mpirun (plan/mpirun_plan.cc) all
// call these functions, so the three modes cannot drift apart again.

#include <cstdint>
#include <string>
#include <vector>

#include "config/env_map.h"

namespace hvd::launcher::plan {

/// A rank's place in the job.
struct RankIdentity {
  int rank = 0;
  int size = 1;
  int local_rank = 0;
  int local_size = 1;
  int node_rank = 0;  // Horovod's cross rank, torch's group rank
  int num_nodes = 1;
  std::string host;   // HOROVOD_HOSTNAME; empty: not set
};

/// The CPUs a rank may use, as far as hvdrun knows, for OMP_NUM_THREADS.
struct CpuShare {
  int bound_cores = 0;    // cores of the CPUs hvdrun pins it to; 0: hvdrun does not pin it
  int cpus_per_task = 0;  // what the scheduler gave each task (SLURM_CPUS_PER_TASK); 0: unknown
  int node_cpus = 0;      // the node's cores (Slurm: SLURM_CPUS_ON_NODE); 0: unknown
};

/// What every rank of a run gets alike, except through its identity.
struct RunSetup {
  std::string master_addr = "127.0.0.1";
  int master_port = 0;
  std::vector<std::string> tf_workers;   // --tf-config: every rank's host:port; else empty
  std::vector<std::string> python_dirs;  // hvdrun's Python packages, put in front of PYTHONPATH
};

/// One rank's GPU: the variable that selects it and its value (empty: no GPU).
struct GpuChoice {
  std::string variable = "CUDA_VISIBLE_DEVICES";
  std::string value;
  // Ids hvdrun found by scanning /dev follow PCI order; CUDA is then told to number them so.
  bool pci_order = false;
};

/// What a rank gets besides its identity, each variable only when its value is known (not
/// empty; a store port of 0): the store's endpoint and the run id (local ranks; srun passes
/// the step's to every task), the checkpoint-notice file (exec/requeue.h), the CPUs hvdrun pins
/// it to, the interface towards MASTER_ADDR (a node's fact, found by exec-rank) and how often
/// Slurm requeued the job. The one writer of these variables in every mode.
struct RankExtras {
  std::string store_addr;        // HVD_STORE_ADDR and HVD_STORE_PORT, with store_port
  uint16_t store_port = 0;       // 0: the store does not listen yet
  std::string run_id;            // HVD_RUN_ID
  std::string checkpoint_file;   // HVD_CHECKPOINT_FILE
  std::vector<int> cpus;         // HVD_CPU_LIST
  std::string socket_interface;  // GLOO_SOCKET_IFNAME, unless `inherited` has one
  std::string requeue_count;     // HVD_REQUEUE_COUNT
  std::string error_file;        // TORCHELASTIC_ERROR_FILE: the rank's own (rank_error_file.h)
};

/// OMP_NUM_THREADS for a rank among `local_size` on its node: the cores it is pinned to; else
/// the CPUs the scheduler gave each task; else the node's cores shared by its ranks; else 0
/// (left unset). One rule in every mode.
int omp_threads(const CpuShare& cpus, int local_size);

/// The variables every rank gets alike: MASTER_ADDR/PORT, and the defaults hvdrun sets for any
/// run when `inherited` (the environment the rank starts with) has no value of its own:
/// OMP_NUM_THREADS (from `cpus` and `local_size`), PYTHONUNBUFFERED=1 (Python buffers stdout on
/// a pipe; without it tagged lines arrive late) and hvdrun's Python folders on PYTHONPATH.
EnvMap shared_env(const RunSetup& run, const CpuShare& cpus, int local_size,
                  const EnvMap& inherited);

/// Everything hvdrun sets for one rank on top of `inherited`: its identity in Horovod's and
/// torch's names, shared_env(), TF_CONFIG with --tf-config, its GPU, and `extras`.
EnvMap rank_env(const RankIdentity& id, const RunSetup& run, const CpuShare& cpus,
                const GpuChoice& gpu, const RankExtras& extras, const EnvMap& inherited);

/// Writes the known values of `extras` into `env`, over what is there: rank_env() does, and so
/// do the steps that learn one later (the store's port once it listens, a restart's run id).
void put_extras(const RankExtras& extras, const EnvMap& inherited, EnvMap& env);

}  // namespace hvd::launcher::plan
