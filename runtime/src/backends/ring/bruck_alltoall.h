// SPDX-License-Identifier: Apache-2.0
#pragma once
// Bruck's alltoall with blocks of any size, over the tree peers only (ring_peers.h).
//
// A block from rank s to rank d travels (d - s) mod n hops forward, split into the powers of
// two of that distance: in step k (2^k < n) every rank sends to rank + 2^k the blocks it holds
// whose remaining distance has bit k set, and receives from rank - 2^k. After ceil(log2 n)
// steps every block is home. Blocks travel with a header (source, destination, bytes), so a
// rank that forwards a block needs no other rank's counts; each step first exchanges the
// length of what follows. Compared with the pairwise exchange, a block may cross the network
// up to log2(n) times, but a rank needs log2(n) connections instead of n - 1.

#include "backends/ring/ring_phases.h"
#include "common/buffer.h"
#include "transport/transport.h"

namespace hvd::backends::ring {

/// Moves block j of `send` (laid out by `out`) to rank j, into block `rank` of rank j's `recv`
/// (laid out by `in`), for every j but this rank. Throws BackendError when a peer's frame is
/// malformed, InternalError when a block's size differs from what the receiver expects.
void bruck_alltoall(Transport& t, const BufferView& send, const Blocks& out, BufferView recv,
                    const Blocks& in);

}  // namespace hvd::backends::ring
