// SPDX-License-Identifier: Apache-2.0
#include "bootstrap/single_bootstrap.h"

#include <memory>

#include "bootstrap/exchange_store.h"
#include "bootstrap/launch_probe.h"
#include "bootstrap/topology.h"

namespace hvd::bootstrap {

Probe SingleBootstrap::probe(const EnvMap& env) const { return probe_single(env); }

Bootstrapped SingleBootstrap::start(const EnvMap& /*env*/, const BootstrapOptions& /*options*/) {
  WorldInfo w;  // rank 0 of 1, alone on its host
  w.method = "single";
  w.hostname = this_host_name();
  return {std::move(w), std::make_unique<ExchangeStore>(std::make_unique<SoloExchange>())};
}

}  // namespace hvd::bootstrap
