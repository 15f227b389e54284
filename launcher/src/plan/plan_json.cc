// SPDX-License-Identifier: Apache-2.0
#include "plan/plan_json.h"

#include "binding/cpu_list.h"
#include "slurm/srun_command.h"

namespace hvd::launcher::plan {
namespace {

using nlohmann::json;

json text_or_null(const std::string& text) { return text.empty() ? json(nullptr) : json(text); }

json binding_json(const binding::RankBinding& b) {
  return {{"cpus", b.cpus.empty() ? json(nullptr) : json(binding::format_cpu_list(b.cpus))},
          {"numa", b.numa < 0 ? json(nullptr) : json(b.numa)},
          {"gpu", text_or_null(b.gpu)}};
}

// The store is known when it has a port: local (picked for --dry-run, the launch's own later);
// Slurm finds its address just before the launch, and mpirun has none.
json rendezvous_json(const LaunchPlan& plan) {
  const Endpoints& ep = plan.endpoints;
  const bool store_known = plan.hosts_store && ep.store_port != 0;
  return {{"store", store_known ? json(ep.store_addr + ":" + std::to_string(ep.store_port))
                                : json(nullptr)},
          {"master_addr", ep.master_addr},
          {"master_port", ep.master_port},
          {"run_id", text_or_null(ep.run_id)}};
}

json starter_json(const LaunchPlan& plan) {
  if (!plan.starter) return nullptr;  // local: hvdrun starts the ranks itself
  const Starter& s = *plan.starter;
  return {{"tool", s.tool}, {"argv", s.argv}, {"line", slurm::shell_join(s.argv)}, {"env", s.env}};
}

// hvdrun's own CPU binding, which only local mode has: srun and mpirun bind theirs.
json binding_plan_json(const LaunchPlan& plan) {
  if (plan.mode != Mode::kLocal) return nullptr;
  return {{"policy", std::string(binding::to_string(plan.binding.policy))},
          {"notes", plan.binding.notes}};
}

json ranks_json(const LaunchPlan& plan) {
  const bool own_binding = plan.mode == Mode::kLocal;
  json ranks = json::array();
  for (const RankPlan& r : plan.ranks) {
    ranks.push_back({{"rank", r.rank},
                     {"local_rank", r.local_rank},
                     {"host", r.host},
                     {"binding", own_binding ? binding_json(r.binding) : json(nullptr)},
                     {"env", r.env}});
  }
  return ranks;
}

json slurm_json(const SlurmStep& step) {
  return {{"profile", {{"name", step.profile}, {"sources", step.profile_sources}}},
          {"job", {{"id", step.job_id}, {"nodes", step.job_nodes}}},
          {"step",
           {{"nodes", step.shape.nodes},
            {"ntasks", step.shape.ntasks},
            {"tasks_per_node", step.shape.tasks_per_node}}}};
}

}  // namespace

json to_json(const LaunchPlan& plan) {
  json j;
  j["mode"] = to_string(plan.mode);
  j["host"] = plan.host;
  j["size"] = plan.size;
  j["command"] = plan.command;
  j["program"] = plan.program;
  j["settings"] = config::to_json(plan.settings);
  j["settings_sources"] = plan.sources;
  j["output_dir"] = text_or_null(plan.output_dir);
  j["rendezvous"] = rendezvous_json(plan);
  j["starter"] = starter_json(plan);
  j["binding"] = binding_plan_json(plan);
  j["ranks"] = ranks_json(plan);
  if (plan.slurm) j["slurm"] = slurm_json(*plan.slurm);
  return j;
}

}  // namespace hvd::launcher::plan
