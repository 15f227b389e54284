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

}  // namespace

nlohmann::json to_json(const LaunchPlan& plan) {
  nlohmann::json j;
  j["mode"] = plan.mode;
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
  j["settings"] = config::to_json(plan.settings);
  j["settings_sources"] = plan.sources;
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
  return j;
}

}  // namespace hvd::launcher::plan
