// SPDX-License-Identifier: Apache-2.0
#pragma once
// HvdrunBootstrap: a rank started by hvdrun (local mode, or srun + hvdrun exec-rank). Rank
// facts come from HOROVOD_*; the store is hvdrun's rendezvous store (RendezvousStore).
// Local and cross ranks come from HOROVOD_LOCAL_* / HOROVOD_CROSS_* when all four are set,
// else from host names (HOROVOD_HOSTNAME or gethostname()) gathered through the store.

#include "bootstrap/bootstrap_method.h"

namespace hvd::bootstrap {

class HvdrunBootstrap final : public BootstrapMethod {
 public:
  std::string_view name() const override { return "hvdrun"; }
  Probe probe(const EnvMap& env) const override;
  /// Connects to the store (waiting up to options.timeout for it). Throws ConfigError naming
  /// a malformed variable, TimeoutError or BootstrapError from the store.
  Bootstrapped start(const EnvMap& env, const BootstrapOptions& options) override;
};

}  // namespace hvd::bootstrap
