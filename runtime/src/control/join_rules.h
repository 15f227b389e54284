// SPDX-License-Identifier: Apache-2.0
#pragma once
// hvd.join() (Horovod's semantics): a rank that has run out of data joins; until every rank has
// joined, the others keep running allreduces, and each joined rank takes part in them with a
// tensor of zeros in place of the one it never submitted. kAverage still divides by the number
// of all ranks, joined ones included, as Horovod does. When the last rank joins, every rank's
// join completes with the id of that rank, and the ranks are all active again.
//
// Only allreduces can run with joined ranks, as in Horovod, which refuses broadcast,
// allgather, alltoall and reducescatter (and here barrier) while some rank has joined: the
// coordinator fails such a tensor on the ranks that submitted it, with the joined ranks named,
// instead of letting them wait for ranks that will never submit it. The zeros join every op,
// as in Horovod (its TensorQueue allocates them for any allreduce): a min, max or product with a
// joined rank is decided by them, and Adasum combines them as a zero vector. One restriction of
// our own, an error rather than a silent surprise: CUDA tensors (a joined rank's zeros are host
// memory so far).
//
// Negotiation: the join is a request (kJoin, name kJoinName) sent like any uncached one. The
// coordinator's MessageTable counts a joined rank as present for every tensor it did not
// submit. In the cache vote, a joined rank sets the bit of every cached response that
// can_run_with_joined() accepts (so that a cached allreduce waits only for the active ranks)
// and marks every other cached entry invalid, which sends those tensors back to negotiation,
// where the coordinator applies the rules above. A response produced with joined ranks is
// never cached (Response::with_joined).

#include <string>
#include <vector>

#include "control/message.h"

namespace hvd::control {

/// The name of the join request and response; reserved.
inline constexpr const char* kJoinName = "hvd.join";

/// Whether a tensor with these properties can run while some ranks have joined.
bool can_run_with_joined(OpType type, ReduceOp op, Device device);

/// Why `request` (the first submitted one of its tensor) cannot run without the ranks in
/// `joined` (ascending), who joined without submitting it; empty when it can.
std::string join_problem(const Request& request, const std::vector<int>& joined);

}  // namespace hvd::control
