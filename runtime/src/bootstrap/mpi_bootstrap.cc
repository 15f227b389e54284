// SPDX-License-Identifier: Apache-2.0
#include "bootstrap/mpi_bootstrap.h"

#include <memory>

#include "bootstrap/exchange_store.h"
#include "bootstrap/launch_probe.h"
#include "bootstrap/mpi_exchange.h"
#include "bootstrap/topology.h"

namespace hvd::bootstrap {

Probe MpiBootstrap::probe(const EnvMap& env) const { return probe_mpi(env); }

Bootstrapped MpiBootstrap::start(const EnvMap& /*env*/, const BootstrapOptions& options) {
  auto exchange = std::make_unique<MpiExchange>();
  WorldInfo w;
  w.method = "mpi";
  w.rank = exchange->rank();
  w.size = exchange->size();
  exchange->shared_memory_rank(w.local_rank, w.local_size);
  w.hostname = this_host_name();
  auto store = std::make_unique<ExchangeStore>(std::move(exchange));
  fill_from_hostnames(w, *store, /*local=*/false, /*cross=*/true, options.timeout);
  return {std::move(w), std::move(store)};
}

}  // namespace hvd::bootstrap
