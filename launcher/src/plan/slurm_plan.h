// SPDX-License-Identifier: Apache-2.0
#pragma once
// The plan of a run inside a Slurm allocation: one srun step whose tasks are the ranks, each
// running `hvdrun exec-rank -- CMD`, which sets the rank's identity on its node. The plan
// predicts every rank's variables with the function exec-rank calls (plan/task_env.h).

#include <functional>
#include <string>
#include <vector>

#include "config/env_map.h"
#include "plan/launch_plan.h"
#include "plan/launch_request.h"
#include "profile/site_profile.h"
#include "slurm/allocation.h"

namespace hvd::launcher::plan {

/// What a Slurm plan is made from besides the options. make_plan() reads them from the
/// allocation hvdrun runs in; `hvdrun sbatch` makes them up for the job it is about to submit
/// (plan/batch_preview.h), so that a batch script shows the step hvdrun will run.
struct SlurmFacts {
  slurm::Allocation alloc;
  profile::SiteProfile profile;
  std::string hvdrun;  // this hvdrun's path, which srun runs as exec-rank on the nodes
  EnvMap env;          // hvdrun's environment: what srun passes on, and the SLURM_* tasks see
  // The address other nodes reach a node by (slurm/node_address.h: DNS, or scontrol for
  // aliases), for MASTER_ADDR and TF_CONFIG.
  std::function<std::string(const std::string&)> node_address;
};

/// The step, its srun line and environment, and every rank's variables as exec-rank will set
/// them. `host` is where hvdrun runs, `program` the resolved command[0]. Throws UsageError for
/// a step the allocation cannot hold, ConfigError when the profile's guards reject the run.
LaunchPlan build_slurm_plan(const LaunchRequest& request, const SlurmFacts& facts,
                            const std::string& host, const std::string& program);

/// The address the store binds, from the step's nodes (slurm/store_address.h): the one other
/// nodes reach this node by. Probes routes, so it is found for a launch, not for --dry-run.
std::string slurm_store_bind_address(const LaunchPlan& plan, const EnvMap& env);

}  // namespace hvd::launcher::plan
