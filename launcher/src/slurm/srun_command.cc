// SPDX-License-Identifier: Apache-2.0
#include "slurm/srun_command.h"

#include <algorithm>
#include <cctype>
#include <string_view>

#include "config/run_options.h"
#include "hvd/error.h"

namespace hvd::launcher::slurm {
namespace {

constexpr int kDefaultPortBase = 20000;

int ranks_per_node(const Allocation& alloc, const profile::SiteProfile& profile) {
  if (alloc.gpus_on_node > 0) return alloc.gpus_on_node;
  return profile.default_ranks_per_node();
}

std::string join_ints(const std::vector<int>& values) {
  std::string out;
  for (int v : values) out += (out.empty() ? "" : ",") + std::to_string(v);
  return out;
}

}  // namespace

StepShape plan_step(const Allocation& alloc, const profile::SiteProfile& profile, int requested) {
  const int job_nodes = static_cast<int>(alloc.nodes.size());
  HVD_CHECK(job_nodes > 0, "an allocation without nodes");
  const int per_node = ranks_per_node(alloc, profile);
  int ntasks = requested;
  if (ntasks <= 0) ntasks = alloc.ntasks > 0 ? alloc.ntasks : job_nodes * per_node;
  if (ntasks > config::kMaxRanks) {  // the plan holds a table per rank
    throw UsageError(str_cat(requested > 0 ? "-np " : "SLURM_NTASKS=", ntasks,
                             ": hvdrun starts at most ", config::kMaxRanks, " ranks"));
  }
  // Slurm's own limit when the job asked for tasks: a step cannot have more.
  if (alloc.ntasks > 0 && ntasks > alloc.ntasks) {
    throw UsageError(str_cat("-np ", ntasks, " is more than the ", alloc.ntasks,
                             " tasks of job ", alloc.job_id,
                             " (SLURM_NTASKS); ask sbatch/salloc for more, or lower -np"));
  }
  StepShape shape;
  shape.ntasks = ntasks;
  // Fill nodes in order, per_node ranks each (or the job's own task counts when it has them).
  std::vector<int> capacity(static_cast<size_t>(job_nodes), per_node);
  if (alloc.tasks_per_node.size() == capacity.size() && alloc.ntasks > 0) {
    capacity = alloc.tasks_per_node;
  }
  int left = ntasks;
  for (int node = 0; node < job_nodes && left > 0; ++node) {
    const int here = std::min(left, capacity[static_cast<size_t>(node)]);
    shape.tasks_per_node.push_back(here);
    left -= here;
  }
  if (left > 0) {
    // More ranks than the job's nodes hold at per_node each: spread them evenly.
    shape.tasks_per_node.assign(static_cast<size_t>(job_nodes), ntasks / job_nodes);
    for (int i = 0; i < ntasks % job_nodes; ++i) ++shape.tasks_per_node[static_cast<size_t>(i)];
  }
  shape.nodes = static_cast<int>(shape.tasks_per_node.size());
  return shape;
}

std::vector<std::string> build_why_node_command(const std::string& srun, const std::string& job_id,
                                                size_t nodes, const std::string& hvdrun) {
  const std::string n = std::to_string(nodes);
  // --kill-on-bad-exit=0: one node that cannot answer must not cut the others short.
  return {srun,         "--jobid=" + job_id,     "--overlap",     "--nodes=" + n,
          "--ntasks=" + n, "--ntasks-per-node=1", "--kill-on-bad-exit=0", "--quiet",
          hvdrun,       "why-node"};
}

std::vector<std::string> exec_rank_args_for(const profile::SiteProfile& profile) {
  std::vector<std::string> args;
  if (profile.gpus_per_node > 0) {
    args.insert(args.end(), {"--gpu-env", profile.gpu_env});
    if (!profile.gpu_order.empty()) args.insert(args.end(), {"--gpu-order", join_ints(profile.gpu_order)});
  }
  return args;
}

std::vector<std::string> build_srun_command(const SrunRequest& r,
                                            const profile::SiteProfile& profile) {
  std::vector<std::string> argv = {"srun", "--nodes=" + std::to_string(r.shape.nodes),
                                   "--ntasks=" + std::to_string(r.shape.ntasks)};
  const auto& per_node = r.shape.tasks_per_node;
  const bool even = std::all_of(per_node.begin(), per_node.end(),
                                [&](int n) { return n == per_node.front(); });
  if (even && !per_node.empty()) argv.push_back("--ntasks-per-node=" + std::to_string(per_node[0]));
  // A failed rank ends the step at once instead of leaving the others waiting in a collective.
  argv.push_back("--kill-on-bad-exit=1");
  // Task numbers on every output line; hvdrun turns them into its [rank]<stdout>: tags.
  argv.push_back("--label");
  if (!profile.mpi.empty()) argv.push_back("--mpi=" + profile.mpi);
  if (!profile.cpu_bind.empty()) argv.push_back("--cpu-bind=" + profile.cpu_bind);
  if (!profile.gpu_bind.empty()) argv.push_back("--gpu-bind=" + profile.gpu_bind);
  if (profile.cpus_per_task > 0) argv.push_back("--cpus-per-task=" + std::to_string(profile.cpus_per_task));
  argv.insert(argv.end(), profile.srun_args.begin(), profile.srun_args.end());
  argv.insert(argv.end(), r.user_srun_args.begin(), r.user_srun_args.end());
  argv.push_back(r.hvdrun);
  argv.push_back("exec-rank");
  argv.insert(argv.end(), r.exec_rank_args.begin(), r.exec_rank_args.end());
  argv.push_back("--");
  argv.insert(argv.end(), r.command.begin(), r.command.end());
  return argv;
}

int master_port_for(const std::string& job_id, int base) {
  long id = 0;
  for (char c : job_id) {
    if (c >= '0' && c <= '9') id = (id * 10 + (c - '0')) % 10000;
  }
  return (base > 0 ? base : kDefaultPortBase) + static_cast<int>(id);
}

std::string shell_quote(const std::string& word) {
  const bool plain = !word.empty() &&
                     std::all_of(word.begin(), word.end(), [](char c) {
                       return std::isalnum(static_cast<unsigned char>(c)) ||
                              std::string_view("-_./=:,+@%").find(c) != std::string_view::npos;
                     });
  if (plain) return word;
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string shell_join(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : " ") + shell_quote(w);
  return out;
}

}  // namespace hvd::launcher::slurm
