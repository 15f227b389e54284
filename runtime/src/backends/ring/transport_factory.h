// SPDX-License-Identifier: Apache-2.0
#pragma once
// make_transport(): a connected ring Transport of one kind among `size` ranks. The one place
// that turns "shm"/"tcp" into transport options, for the run-wide transports of the registry
// and the per-host and cross-host ones of the hierarchical backend.

#include <memory>
#include <string>

#include "backends/ring/transport.h"
#include "bootstrap/kv_store.h"

namespace hvd::backends::ring {

/// Collective among the ranks [0, size) that share `store`'s keys: each calls it with the same
/// kind and scope. A TCP transport advertises store.reachable_address() (the address this rank
/// used to reach the rendezvous store) when the store knows one, the host name otherwise.
std::unique_ptr<Transport> make_transport(const std::string& kind, bootstrap::KvStore& store,
                                          int rank, int size, const std::string& scope);

}  // namespace hvd::backends::ring
