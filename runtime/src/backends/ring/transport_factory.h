// SPDX-License-Identifier: Apache-2.0
#pragma once
// make_transport(): a connected ring Transport of one kind among `size` ranks. The one place
// that turns "shm"/"tcp" into transport options, for the run-wide transports of the registry
// and the per-host and cross-host ones of the hierarchical backend.

#include <memory>
#include <string>

#include "auth/run_secret.h"
#include "backends/ring/transport.h"
#include "bootstrap/kv_store.h"

namespace hvd::backends::ring {

/// Collective among the ranks [0, size) that share `store`'s keys: each calls it with the same
/// kind, scope and secret (which TCP connections prove, see tcp_transport.h). A TCP transport
/// listens on and advertises 127.0.0.1 when `one_host` (all its ranks share this host), else
/// store.reachable_address() (the address this rank used to reach the rendezvous store) when
/// the store knows one, else the host name.
std::unique_ptr<Transport> make_transport(const std::string& kind, bootstrap::KvStore& store,
                                          int rank, int size, const std::string& scope,
                                          const auth::RunSecret& secret, bool one_host);

}  // namespace hvd::backends::ring
