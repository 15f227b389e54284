// SPDX-License-Identifier: Apache-2.0
#pragma once
// SingleBootstrap: one process alone (rank 0 of 1) with an in-memory store, for programs run
// without a launcher. Its probe refuses when a variable says there are other ranks.

#include "bootstrap/bootstrap_method.h"

namespace hvd::bootstrap {

class SingleBootstrap final : public BootstrapMethod {
 public:
  std::string_view name() const override { return "single"; }
  Probe probe(const EnvMap& env) const override;
  /// Never fails but for gethostname().
  Bootstrapped start(const EnvMap& env, const BootstrapOptions& options) override;
};

}  // namespace hvd::bootstrap
