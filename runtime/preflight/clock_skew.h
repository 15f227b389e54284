// SPDX-License-Identifier: Apache-2.0
#pragma once
// Each rank's wall clock against rank 0's, Cristian's way over libhvd collectives. One round:
// every rank notes t1 and joins an 8-byte allreduce; rank 0 reads its clock T0 once that
// allreduce is done (so after every rank's t1) and broadcasts it; every rank notes t2 when the
// broadcast arrives (so after T0). Hence t1 <= T0 <= t2 in true time, and the offset
// T0 - (t1 + t2) / 2 is off by at most (t2 - t1) / 2. The round with the shortest t2 - t1 wins.

namespace hvd::preflight {

struct ClockSkew {
  double offset_ms = 0;  // this rank's clock minus rank 0's (0 on rank 0)
  double rtt_ms = 0;     // t2 - t1 of the round used: the offset's error is at most half of it
};

/// Collective over all ranks. Throws hvd::Error when a collective fails.
ClockSkew measure_clock_skew(int rounds);

}  // namespace hvd::preflight
