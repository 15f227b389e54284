// SPDX-License-Identifier: Apache-2.0
#pragma once
// The "gloo" column: Gloo (Debian's libgloo-dev, a peer in this benchmark only) over its TCP
// transport, on loopback when every rank is on one host. Allreduce is timed with each of
// Gloo's algorithms (ring, ring_chunked, halving_doubling, bcube) and the table shows the
// fastest; broadcast is one_to_all, allgather the ring.

#include <memory>

#include "bench/collective_impl.h"
#include "bootstrap/kv_store.h"
#include "bootstrap/world_info.h"

namespace hvd::bench {

/// Connects a Gloo context among all ranks, meeting over `kv` (see gloo_store.h). Collective.
/// Throws what Gloo throws (std::exception subclasses) when it cannot connect.
std::unique_ptr<Impl> make_gloo_peer(bootstrap::KvStore& kv, const bootstrap::WorldInfo& world);

}  // namespace hvd::bench
