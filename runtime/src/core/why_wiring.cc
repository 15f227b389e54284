// SPDX-License-Identifier: Apache-2.0
#include "core/why_wiring.h"

#include <nlohmann/json.hpp>

namespace hvd::core {
namespace {

// The coordinator's stall report as hvdrun reads it (launcher/src/why/).
std::string stall_json(const control::StallReport& report) {
  nlohmann::json tensors = nlohmann::json::array();
  for (const control::StalledTensor& t : report.stalled) {
    tensors.push_back({{"name", t.name},
                       {"missing", t.missing_ranks},
                       {"waited_s", std::chrono::duration<double>(t.waited).count()}});
  }
  return nlohmann::json{{"tensors", std::move(tensors)}}.dump(
      -1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

WhyWiring wire_why(int rank, const EnvMap& env, RuntimeOptions& options) {
  WhyWiring w;
  w.responder = diag::make_why_responder(rank, env, [slot = w.runtime]() {
    const Runtime* r = slot->load();
    return r != nullptr ? r->queue_view() : diag::QueueView{};
  });
  if (w.responder) {
    // Weak: the responder is stopped and dropped before the runtime's last cycles.
    options.controller.on_stall = [weak = std::weak_ptr<diag::WhyResponder>(w.responder)](
                                      const control::StallReport& report) {
      if (auto responder = weak.lock()) responder->publish_stall(stall_json(report));
    };
  }
  return w;
}

}  // namespace hvd::core
