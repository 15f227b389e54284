// SPDX-License-Identifier: Apache-2.0
#include "diag/rank_snapshot.h"

#include <nlohmann/json.hpp>

namespace hvd::diag {
namespace {

nlohmann::json op_json(const OpRecord& r) {
  return nlohmann::json{{"name", r.name}, {"op", r.op},   {"process_set", r.process_set},
                        {"seq", r.seq},   {"age_s", r.age_s}};
}

}  // namespace

std::string to_json(const QueueView& view) {
  nlohmann::json pending = nlohmann::json::array();
  for (const OpRecord& r : view.pending) pending.push_back(op_json(r));
  nlohmann::json out{{"pending", std::move(pending)},
                     {"submitted", view.submitted},
                     {"completed", view.completed},
                     {"quiet_s", view.quiet_s}};
  out["last_done"] = view.last_done ? op_json(*view.last_done) : nlohmann::json();
  return out.dump();
}

}  // namespace hvd::diag
