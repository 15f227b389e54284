// SPDX-License-Identifier: Apache-2.0
#pragma once
// What hvdrun will run inside a batch job that has not been submitted yet, predicted by the code
// that runs it (plan/slurm_plan.h) over the allocation the script asks for. `hvdrun sbatch`
// writes it into the script as comments, and `hvdrun sbatch --explain` prints it alone, so that
// site staff can read the srun line, its --cpu-bind masks, --gpu-bind and --mpi, and each rank's
// GPU and CPUs before anything runs.

#include <string>
#include <vector>

#include "config/env_map.h"
#include "config/run_options.h"
#include "profile/site_profile.h"
#include "slurm/sbatch_render.h"

namespace hvd::launcher::plan {

struct BatchPreview {
  // The srun line; values known only once the job runs are shown as <...>.
  std::vector<std::string> srun;
  int nodes = 0;
  int ranks = 0;
  struct LocalRank {
    int local_rank = 0;
    int rank = 0;
    std::string gpu;   // "ROCR_VISIBLE_DEVICES=3", or "none"
    std::string cpus;  // slurm/cpu_bind.h's words
    std::string omp;   // OMP_NUM_THREADS, or "not set"
  };
  std::vector<LocalRank> first_node;  // the ranks of the job's first node
  std::string gpu_bind;               // the profile's --gpu-bind; empty: none
};

/// `opts` are the options hvdrun gets inside the job (--hvdrun-arg, the profile, the program
/// with the profile's container prefix); `env` the environment sbatch passes on. The program
/// is not looked up: it may exist only on the compute nodes. Throws what make_plan() would.
BatchPreview preview_batch_step(const slurm::BatchRequest& request,
                                const profile::SiteProfile& profile,
                                const config::RunOptions& opts, const EnvMap& env,
                                const std::string& hvdrun);

/// The preview as text lines, a table of the first node's ranks under the srun line.
std::vector<std::string> describe(const BatchPreview& preview);

}  // namespace hvd::launcher::plan
