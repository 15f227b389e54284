// SPDX-License-Identifier: Apache-2.0
#pragma once
// libhvd allreduce latency and bandwidth within one process set, timed as hvd-bench does: a
// fixed number of operations after a warm-up, each waited for, the median counted. Fixed counts
// (not a time budget) because every member must run the same operations.

#include <string>

namespace hvd::preflight {

struct CollectiveTiming {
  double latency_us = 0;   // median time of one 8-byte allreduce
  double busbw_gbps = 0;   // nccl-tests' bus bandwidth of the median large allreduce
  double bytes = 0;        // the large allreduce's size
};

/// Runs on every member of `process_set` (0: all ranks); `tag` keeps tensor names apart between
/// calls. Throws hvd::Error when an allreduce fails.
CollectiveTiming time_allreduce(int process_set, int set_size, const std::string& tag,
                                int large_bytes);

}  // namespace hvd::preflight
