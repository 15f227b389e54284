// SPDX-License-Identifier: Apache-2.0
#include "slurm/allocation.h"

#include <charconv>
#include <initializer_list>
#include <string_view>

#include "hvd/error.h"
#include "slurm/gpu_ids.h"
#include "slurm/hostlist.h"
#include "slurm/task_counts.h"

namespace hvd::launcher::slurm {
namespace {

// The first of several names for one variable (current name first, then older ones) that is
// set; `value` is null when none is.
struct EnvValue {
  const char* name = nullptr;
  const std::string* value = nullptr;
};

EnvValue first_set(const EnvMap& env, std::initializer_list<const char*> names) {
  for (const char* name : names) {
    const auto it = env.find(name);
    if (it != env.end()) return {name, &it->second};
  }
  return {*names.begin(), nullptr};
}

EnvValue require(const EnvMap& env, std::initializer_list<const char*> names) {
  const EnvValue found = first_set(env, names);
  if (found.value != nullptr) return found;
  std::string spelled;
  for (const char* name : names) spelled += str_cat(spelled.empty() ? "" : " or ", name);
  throw SchedulerError(str_cat(spelled, " is not set (is this inside a Slurm job or step?)"));
}

// The variable as an int >= `min`.
int parse_int(const EnvValue& var, int min) {
  const std::string& text = *var.value;
  int value = 0;
  const char* end = text.data() + text.size();
  const bool digit_first = !text.empty() && text.front() >= '0' && text.front() <= '9';
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (!digit_first || ec != std::errc() || ptr != end || value < min) {
    throw SchedulerError(str_cat(var.name, "='", text, "' is not an integer >= ", min));
  }
  return value;
}

// Runs one of the list parsers on the variable, adding its name to the parser's message.
template <typename Parse>
auto parse_list(const EnvValue& var, Parse parse) {
  try {
    return parse(*var.value);
  } catch (const SchedulerError& e) {
    throw SchedulerError(str_cat(var.name, ": ", e.what()));
  }
}

std::string parse_job_id(const EnvMap& env) {
  const EnvValue var = require(env, {"SLURM_JOB_ID", "SLURM_JOBID"});
  const std::string& id = *var.value;
  // Slurm job ids are numbers (array tasks and het-job parts get their own); anything else
  // would end up in file names and srun arguments, so refuse it here.
  if (id.empty() || id.find_first_not_of("0123456789") != std::string::npos) {
    throw SchedulerError(str_cat(var.name, "='", id, "' is not a Slurm job id (a number)"));
  }
  return id;
}

std::vector<std::string> parse_nodelist(const EnvValue& var) {
  std::vector<std::string> nodes = parse_list(var, expand_hostlist);
  if (nodes.empty()) throw SchedulerError(str_cat(var.name, " is empty"));
  return nodes;
}

// An optional per-node count list that must have one entry per node of `nodelist`.
std::vector<int> parse_per_node(const EnvMap& env, const char* name, const EnvValue& nodelist,
                                size_t num_nodes) {
  const EnvValue var = first_set(env, {name});
  if (var.value == nullptr) return {};
  std::vector<int> counts = parse_list(var, expand_task_counts);
  if (counts.size() != num_nodes) {
    throw SchedulerError(str_cat(name, "='", *var.value, "' has ", counts.size(), " entries but ",
                                 nodelist.name, "='", *nodelist.value, "' has ", num_nodes,
                                 " nodes"));
  }
  return counts;
}

// SLURM_PROCID / SLURM_NTASKS.
void parse_global_place(const EnvMap& env, StepTask& task) {
  const EnvValue size = require(env, {"SLURM_NTASKS", "SLURM_NPROCS"});
  const EnvValue rank = require(env, {"SLURM_PROCID"});
  task.size = parse_int(size, 1);
  task.rank = parse_int(rank, 0);
  if (task.rank >= task.size) {
    throw SchedulerError(
        str_cat(rank.name, "=", task.rank, " is not below ", size.name, "=", task.size));
  }
}

// SLURM_NODEID / SLURM_STEP_NUM_NODES and the step's node list.
void parse_node_place(const EnvMap& env, StepTask& task) {
  const EnvValue num_nodes =
      require(env, {"SLURM_STEP_NUM_NODES", "SLURM_NNODES", "SLURM_JOB_NUM_NODES"});
  const EnvValue node_rank = require(env, {"SLURM_NODEID"});
  task.num_nodes = parse_int(num_nodes, 1);
  task.node_rank = parse_int(node_rank, 0);
  if (task.node_rank >= task.num_nodes) {
    throw SchedulerError(str_cat(node_rank.name, "=", task.node_rank, " is not below ",
                                 num_nodes.name, "=", task.num_nodes));
  }
  const EnvValue nodelist =
      require(env, {"SLURM_STEP_NODELIST", "SLURM_JOB_NODELIST", "SLURM_NODELIST"});
  task.step_nodes = parse_nodelist(nodelist);
  const size_t have = task.step_nodes.size();
  const auto want = static_cast<size_t>(task.num_nodes);
  // A job node list (the fallback) may hold more nodes than the step uses, never fewer.
  const bool is_step_list = std::string_view(nodelist.name) == "SLURM_STEP_NODELIST";
  if (have < want || (is_step_list && have != want)) {
    throw SchedulerError(str_cat(nodelist.name, "='", *nodelist.value, "' has ", have,
                                 " nodes but ", num_nodes.name, "=", task.num_nodes));
  }
}

// SLURM_LOCALID and this node's entry of the step's tasks-per-node list.
void parse_local_place(const EnvMap& env, StepTask& task) {
  const EnvValue counts_var = require(env, {"SLURM_STEP_TASKS_PER_NODE", "SLURM_TASKS_PER_NODE"});
  const std::vector<int> counts = parse_list(counts_var, expand_task_counts);
  if (static_cast<size_t>(task.node_rank) >= counts.size()) {
    throw SchedulerError(str_cat(counts_var.name, "='", *counts_var.value, "' has no entry for ",
                                 "SLURM_NODEID=", task.node_rank));
  }
  task.local_size = counts[static_cast<size_t>(task.node_rank)];
  const EnvValue local_rank = require(env, {"SLURM_LOCALID"});
  task.local_rank = parse_int(local_rank, 0);
  if (task.local_rank >= task.local_size) {
    throw SchedulerError(str_cat(local_rank.name, "=", task.local_rank, " is not below ",
                                 task.local_size, ", this node's entry of ", counts_var.name, "='",
                                 *counts_var.value, "'"));
  }
}

}  // namespace

bool in_allocation(const EnvMap& env) {
  return env_has(env, "SLURM_JOB_ID") || env_has(env, "SLURM_JOBID");
}

Allocation parse_allocation(const EnvMap& env) {
  Allocation alloc;
  alloc.job_id = parse_job_id(env);
  alloc.cluster_name = env_string(env, "SLURM_CLUSTER_NAME", "");
  alloc.partition = env_string(env, "SLURM_JOB_PARTITION", "");
  const EnvValue nodelist = require(env, {"SLURM_JOB_NODELIST", "SLURM_NODELIST"});
  alloc.nodes = parse_nodelist(nodelist);
  alloc.tasks_per_node = parse_per_node(env, "SLURM_TASKS_PER_NODE", nodelist, alloc.nodes.size());
  alloc.cpus_per_node =
      parse_per_node(env, "SLURM_JOB_CPUS_PER_NODE", nodelist, alloc.nodes.size());
  if (const EnvValue v = first_set(env, {"SLURM_NTASKS", "SLURM_NPROCS"}); v.value != nullptr) {
    alloc.ntasks = parse_int(v, 1);
  }
  if (const EnvValue v = first_set(env, {"SLURM_GPUS_ON_NODE"}); v.value != nullptr) {
    alloc.gpus_on_node = parse_int(v, 0);
  }
  if (const EnvValue v = first_set(env, {"SLURM_JOB_GPUS"}); v.value != nullptr) {
    alloc.job_gpus = parse_list(v, parse_gpu_ids);
  }
  return alloc;
}

StepTask parse_step_task(const EnvMap& env) {
  StepTask task;
  task.job_id = parse_job_id(env);
  const EnvValue step_id = first_set(env, {"SLURM_STEP_ID", "SLURM_STEPID"});
  if (step_id.value != nullptr) task.step_id = *step_id.value;
  parse_global_place(env, task);
  parse_node_place(env, task);
  parse_local_place(env, task);
  return task;
}

}  // namespace hvd::launcher::slurm
