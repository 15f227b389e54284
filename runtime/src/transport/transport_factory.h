// SPDX-License-Identifier: Apache-2.0
#pragma once
// make_transport(): a connected ring Transport of one kind among `size` ranks. The one place
// that turns "shm"/"tcp" into transport options, for the run-wide transports of the registry
// and the per-host and cross-host ones of the hierarchical backend.

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "auth/run_secret.h"
#include "bootstrap/kv_store.h"
#include "bootstrap/world_info.h"
#include "env/env.h"
#include "transport/transport.h"

namespace hvd::backends::ring {

/// How a transport is set up, besides its kind, scope and secret.
struct TransportSetup {
  /// All its ranks share this host.
  bool one_host = false;
  /// Bound on setup, which waits for the slowest rank: libhvd passes HVD_BOOTSTRAP_TIMEOUT.
  std::chrono::milliseconds timeout{std::chrono::seconds(120)};
  /// The address to listen on and advertise (HVD_RING_ADDRESS); "" to choose one.
  std::string address;
  /// This rank's host name and every rank's (WorldInfo::hostnames, may be empty), for finding
  /// the route to another host when the store knows no address (listen_address.h).
  std::string self_host;
  std::vector<std::string> hosts;
};

/// How a run's transports are set up: one host or several (from `world`), the wait for the
/// other ranks bounded by `timeout` (the bootstrap's), HVD_RING_ADDRESS from `env`, and the
/// world's host names. Throws ConfigError for an HVD_RING_ADDRESS that is not a numeric address.
TransportSetup transport_setup(const EnvMap& env, const bootstrap::WorldInfo& world,
                               std::chrono::milliseconds timeout);

/// Collective among the ranks [0, size) that share `store`'s keys: each calls it with the same
/// kind, scope and secret (which TCP connections prove, see tcp_transport.h). A TCP transport
/// listens on and advertises (never on 0.0.0.0), in this order: 127.0.0.1 when setup.one_host;
/// setup.address; store.reachable_address() (the address this rank used to reach the rendezvous
/// store) when the store knows one; the local end of the route to another of setup.hosts; the
/// host name when no host names are known. Throws TimeoutError naming setup.timeout when a rank
/// does not show up in time, BootstrapError when no address fits.
std::unique_ptr<Transport> make_transport(const std::string& kind, bootstrap::KvStore& store,
                                          int rank, int size, const std::string& scope,
                                          const auth::RunSecret& secret,
                                          const TransportSetup& setup);

}  // namespace hvd::backends::ring
