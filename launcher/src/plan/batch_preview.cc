// SPDX-License-Identifier: Apache-2.0
#include "plan/batch_preview.h"

#include <algorithm>
#include <cstdio>

#include "config/data_dirs.h"
#include "config/host_spec.h"
#include "hvd/env_keys.h"
#include "hvd/error.h"
#include "plan/launch_request.h"
#include "plan/slurm_plan.h"
#include "slurm/cpu_bind.h"
#include "slurm/srun_command.h"

namespace hvd::launcher::plan {
namespace {

// The job the script asks for, as Slurm will describe it to hvdrun: node names and the job id
// are placeholders, since only Slurm knows them.
slurm::Allocation requested_allocation(const slurm::BatchRequest& r,
                                       const profile::SiteProfile& p) {
  slurm::Allocation alloc;
  alloc.job_id = "JOBID";
  for (int i = 1; i <= r.nodes; ++i) alloc.nodes.push_back(str_cat("node", i));
  const int per_node = slurm::batch_tasks_per_node(r, p);
  alloc.tasks_per_node.assign(static_cast<size_t>(r.nodes), per_node);
  alloc.ntasks = r.nodes * per_node;
  alloc.gpus_on_node = slurm::batch_gpus_per_node(r, p);
  if (p.cores_per_node > 0) alloc.cpus_per_node.assign(static_cast<size_t>(r.nodes), p.cores_per_node);
  return alloc;
}

// sbatch's environment as the tasks will see it: the submitter's, without the SLURM_* of any job
// it runs in, with what the script's directives make Slurm set.
EnvMap job_env(const EnvMap& env, const slurm::Allocation& alloc, const profile::SiteProfile& p) {
  EnvMap out;
  for (const auto& [key, value] : env) {
    if (key.rfind("SLURM_", 0) != 0) out[key] = value;
  }
  if (p.cpus_per_task > 0) out["SLURM_CPUS_PER_TASK"] = std::to_string(p.cpus_per_task);
  if (p.cores_per_node > 0) out["SLURM_CPUS_ON_NODE"] = std::to_string(p.cores_per_node);
  if (alloc.gpus_on_node > 0) out["SLURM_GPUS_ON_NODE"] = std::to_string(alloc.gpus_on_node);
  return out;
}

// The exec-rank values that come from the job: the first node's address, and the job id's port.
void mark_job_values(std::vector<std::string>& argv, const profile::SiteProfile& p) {
  const auto dash_dash = std::find(argv.begin(), argv.end(), std::string("--"));
  for (auto it = argv.begin(); it != dash_dash && it + 1 != dash_dash; ++it) {
    if (*it == "--master-addr") {
      *(it + 1) = "<first node>";
    } else if (*it == "--master-port") {
      const int base = p.master_port_base > 0 ? p.master_port_base : slurm::master_port_for("", 0);
      *(it + 1) = str_cat("<", base, "+job id%10000>");
    } else if (*it == "--tf-workers") {
      *(it + 1) = "<each node:port>";
    }
  }
}

std::string padded(const std::string& text, size_t width) {
  return text.size() >= width ? text + " " : text + std::string(width - text.size(), ' ');
}

}  // namespace

BatchPreview preview_batch_step(const slurm::BatchRequest& request,
                                const profile::SiteProfile& profile,
                                const config::RunOptions& opts, const EnvMap& env,
                                const std::string& hvdrun) {
  SlurmFacts facts;
  facts.alloc = requested_allocation(request, profile);
  if (opts.num_proc && *opts.num_proc > facts.alloc.ntasks) {
    throw UsageError(str_cat("--hvdrun-arg -np ", *opts.num_proc, ": the script asks for ",
                             facts.alloc.ntasks, " tasks (", request.nodes, " node(s) x ",
                             facts.alloc.tasks_per_node.front(),
                             "); raise -N or --ntasks-per-node, or lower -np"));
  }
  facts.profile = profile;
  facts.hvdrun = hvdrun;
  facts.env = job_env(env, facts.alloc, profile);
  facts.node_address = [](const std::string& node) { return node; };
  // The job's command line, resolved as hvdrun will resolve it in the job; the program is
  // looked up there, on the node, not here.
  const LaunchRequest job = resolve_request(opts, Mode::kSlurm, config::defaults_file(),
                                            config::this_machine_names, facts.env);
  const LaunchPlan plan = build_slurm_plan(job, facts, "", job.command.front());

  BatchPreview preview;
  preview.srun = plan.starter->argv;
  mark_job_values(preview.srun, profile);
  preview.nodes = plan.slurm->shape.nodes;
  preview.ranks = plan.size;
  preview.gpu_bind = profile.gpu_bind;
  for (const RankPlan& r : plan.ranks) {
    if (r.host != facts.alloc.nodes.front()) break;
    BatchPreview::LocalRank row;
    row.local_rank = r.local_rank;
    row.rank = r.rank;
    const auto gpu = r.env.find(profile.gpu_env);
    row.gpu = gpu == r.env.end() ? "none" : profile.gpu_env + "=" + gpu->second;
    row.cpus = slurm::describe_cpu_bind(profile.cpu_bind, r.local_rank, profile.cpus_per_task);
    const auto omp = r.env.find(env::kOmpNumThreads);
    row.omp = omp == r.env.end() ? "not set" : omp->second;
    preview.first_node.push_back(std::move(row));
  }
  return preview;
}

std::vector<std::string> describe(const BatchPreview& p) {
  std::vector<std::string> lines;
  lines.push_back(str_cat("hvdrun runs this one srun step (", p.ranks, " ranks on ", p.nodes,
                          " node", p.nodes == 1 ? "" : "s",
                          "; <...> is known once the job starts):"));
  lines.push_back("  " + slurm::shell_join(p.srun));
  lines.push_back(str_cat("The ranks of the first node (the others' follow the same pattern):"));
  size_t gpu_width = 4, cpu_width = 4;
  for (const auto& r : p.first_node) {
    gpu_width = std::max(gpu_width, r.gpu.size() + 2);
    cpu_width = std::max(cpu_width, r.cpus.size() + 2);
  }
  lines.push_back("  " + padded("local", 7) + padded("rank", 7) + padded("GPU", gpu_width) +
                  padded("CPUs", cpu_width) + "OMP_NUM_THREADS");
  for (const auto& r : p.first_node) {
    lines.push_back("  " + padded(std::to_string(r.local_rank), 7) +
                    padded(std::to_string(r.rank), 7) + padded(r.gpu, gpu_width) +
                    padded(r.cpus, cpu_width) + r.omp);
  }
  if (p.gpu_bind == "none") {
    lines.push_back("srun --gpu-bind=none: every task sees all of its node's GPUs, and hvdrun "
                    "gives each rank the one above.");
  } else if (!p.gpu_bind.empty()) {
    lines.push_back(str_cat("srun --gpu-bind=", p.gpu_bind,
                            " limits the GPUs each task sees, and hvdrun picks among those: the "
                            "GPU column assumes every task sees all of its node's GPUs."));
  }
  return lines;
}

}  // namespace hvd::launcher::plan
