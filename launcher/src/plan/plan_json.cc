// SPDX-License-Identifier: Apache-2.0
#include "plan/plan_json.h"

#include "binding/cpu_list.h"

namespace hvd::launcher::plan {
namespace {

nlohmann::json binding_json(const binding::RankBinding& b) {
  nlohmann::json j;
  j["cpus"] = b.cpus.empty() ? nlohmann::json(nullptr)
                             : nlohmann::json(binding::format_cpu_list(b.cpus));
  j["numa"] = b.numa < 0 ? nlohmann::json(nullptr) : nlohmann::json(b.numa);
  j["gpu"] = b.gpu.empty() ? nlohmann::json(nullptr) : nlohmann::json(b.gpu);
  return j;
}

void add_local(const LaunchPlan& plan, nlohmann::json& j) {
  j["host"] = plan.host;
  j["size"] = plan.size;
  j["command"] = plan.command;
  j["program"] = plan.program;
  j["rendezvous"] = {{"store", plan.endpoints.store_addr + ":" +
                                   std::to_string(plan.endpoints.store_port)},
                     {"master_addr", plan.endpoints.master_addr},
                     {"master_port", plan.endpoints.master_port},
                     {"run_id", plan.endpoints.run_id}};
  j["binding"] = {{"policy", std::string(binding::to_string(plan.binding.policy))},
                  {"notes", plan.binding.notes}};
  j["output_dir"] = plan.output_dir.empty() ? nlohmann::json(nullptr)
                                            : nlohmann::json(plan.output_dir);
  nlohmann::json ranks = nlohmann::json::array();
  for (const RankPlan& r : plan.ranks) {
    ranks.push_back({{"rank", r.rank},
                     {"local_rank", r.local_rank},
                     {"host", r.host},
                     {"binding", binding_json(r.binding)},
                     {"env", r.env}});
  }
  j["ranks"] = ranks;
}

void add_slurm(const LaunchPlan& plan, nlohmann::json& j) {
  const SlurmStep& step = *plan.slurm;
  j["profile"] = {{"name", step.profile}, {"sources", step.profile_sources}};
  j["job"] = {{"id", step.job_id}, {"nodes", step.job_nodes}};
  j["step"] = {{"nodes", step.shape.nodes},
               {"ntasks", step.shape.ntasks},
               {"tasks_per_node", step.shape.tasks_per_node}};
  j["srun"] = plan.starter->argv;
  j["srun_line"] = slurm::shell_join(plan.starter->argv);
  j["step_env"] = plan.starter->env;
  nlohmann::json ranks = nlohmann::json::array();
  for (const RankPlan& r : plan.ranks) {
    ranks.push_back(
        {{"rank", r.rank}, {"node", r.host}, {"local_rank", r.local_rank}, {"env", r.env}});
  }
  j["ranks"] = ranks;
}

void add_mpirun(const LaunchPlan& plan, nlohmann::json& j) {
  j["size"] = plan.size;
  j["mpirun"] = plan.starter->argv;
  j["mpirun_line"] = slurm::shell_join(plan.starter->argv);
  j["env"] = plan.starter->env;
}

}  // namespace

nlohmann::json to_json(const LaunchPlan& plan) {
  nlohmann::json j;
  j["mode"] = to_string(plan.mode);
  j["settings"] = config::to_json(plan.settings);
  j["settings_sources"] = plan.sources;
  switch (plan.mode) {
    case Mode::kLocal:
      add_local(plan, j);
      break;
    case Mode::kSlurm:
      add_slurm(plan, j);
      break;
    case Mode::kMpirun:
      add_mpirun(plan, j);
      break;
  }
  return j;
}

}  // namespace hvd::launcher::plan
