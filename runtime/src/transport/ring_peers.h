// SPDX-License-Identifier: Apache-2.0
#pragma once
// The peers a rank's collectives (collectives.cc, ring_phases.cc) and the control channel
// (core/transport_channel.cc) ever exchange bytes with, so that a TCP transport connects only
// to those: O(log size) sockets per rank instead of size - 1.
//
//   ring (reduce-scatter, allgather):                 rank +- 1
//   binomial trees (broadcast, scatter, control gather), the dissemination barrier and the
//   Bruck alltoall:                                   rank +- 2^k (mod size), 2^k < size
//   recursive doubling (small allreduce):             its partners and the fix-up partner of
//                                                     the ranks beyond the largest power of two
//
// Every relation is symmetric (b is a peer of a exactly when a is a peer of b), which the
// transport's setup relies on: the lower rank of each pair connects, the higher one accepts.
// A collective that needs another peer is a bug; the transport refuses it with InternalError.

#include <vector>

namespace hvd::backends::ring {

/// The peers of `rank` among `size` ranks, ascending, without `rank` itself.
std::vector<int> algorithm_peers(int rank, int size);

/// Partner of `rank` in the recursive-doubling allreduce's step with `mask` (a power of two
/// below the largest power of two p <= size), or -1 for a rank that sits out the doubling
/// (an even rank below 2 * (size - p), which hands its data to rank + 1 first).
int doubling_partner(int rank, int size, int mask);

/// The largest power of two <= size.
int largest_power_of_two(int size);

}  // namespace hvd::backends::ring
