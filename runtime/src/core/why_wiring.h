// SPDX-License-Identifier: Apache-2.0
#pragma once
// Connects libhvd's instance to hvdrun's diagnostics (diag/why_responder.h): the responder
// answers with the runtime's queue, and the coordinator's stall warnings reach it.

#include <atomic>
#include <memory>

#include "env/env.h"
#include "core/runtime.h"
#include "diag/why_responder.h"

namespace hvd::core {

struct WhyWiring {
  std::shared_ptr<diag::WhyResponder> responder;  // null without hvdrun's store
  // The runtime the responder reads, once it exists: set it after constructing the runtime.
  std::shared_ptr<std::atomic<Runtime*>> runtime = std::make_shared<std::atomic<Runtime*>>();
};

/// Makes the responder for `rank` and points `options`' stall hook at it (before the Runtime is
/// constructed with `options`).
WhyWiring wire_why(int rank, const EnvMap& env, RuntimeOptions& options);

}  // namespace hvd::core
