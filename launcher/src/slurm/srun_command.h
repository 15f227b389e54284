// SPDX-License-Identifier: Apache-2.0
#pragma once
// The srun step that runs the ranks inside an allocation: its shape and its command line.
// Used both when hvdrun launches inside a job and to show the step in --dry-run and in
// rendered batch scripts, so that all three agree.

#include <string>
#include <vector>

#include "config/env_map.h"
#include "profile/site_profile.h"
#include "slurm/allocation.h"

namespace hvd::launcher::slurm {

struct StepShape {
  int nodes = 0;
  int ntasks = 0;
  std::vector<int> tasks_per_node;  // block distribution, as Slurm's default
};

/// Ranks: `requested` when > 0; else SLURM_NTASKS; else nodes x GPUs per node (from
/// SLURM_GPUS_ON_NODE, else the profile). Nodes: as many of the job's as the ranks need.
/// Throws UsageError when more ranks are asked for than the allocation's tasks allow.
StepShape plan_step(const Allocation& alloc, const profile::SiteProfile& profile, int requested);

struct SrunRequest {
  StepShape shape;
  std::string hvdrun;                          // hvdrun's path, run as `exec-rank` on the nodes
  std::vector<std::string> exec_rank_args;     // options for exec-rank
  std::vector<std::string> command;            // the user's program and arguments
  std::vector<std::string> user_srun_args;     // --srun-arg values, passed through
};

/// srun --nodes=N --ntasks=T [--ntasks-per-node] --kill-on-bad-exit=1 --label [profile flags]
///      [user flags] HVDRUN exec-rank [args] -- COMMAND...
std::vector<std::string> build_srun_command(const SrunRequest& request,
                                            const profile::SiteProfile& profile);

/// The srun line that starts `hvdrun why-node` once on each of the job's `nodes`, beside the
/// running step (--overlap: the step holds every CPU), for a verdict (why/node_agent.h). All
/// of the job's nodes, not only the step's: Slurm, not hvdrun, placed the step's tasks, and a
/// node without ranks of the run costs one short task that finds none.
std::vector<std::string> build_why_node_command(const std::string& srun, const std::string& job_id,
                                                size_t nodes, const std::string& hvdrun);

/// The exec-rank options that carry the profile's GPU selection to every task.
std::vector<std::string> exec_rank_args_for(const profile::SiteProfile& profile);

/// MASTER_PORT for a job: base + job id % 10000, so that jobs sharing a node do not collide
/// and every task of the job computes the same port on its own. Base 0 means hvdrun's default,
/// 20000, which keeps clear of torch's usual 29500.
int master_port_for(const std::string& job_id, int base);

/// Shell-quotes one word for a batch script or a printed command line.
std::string shell_quote(const std::string& word);
std::string shell_join(const std::vector<std::string>& words);

}  // namespace hvd::launcher::slurm
