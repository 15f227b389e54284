// SPDX-License-Identifier: Apache-2.0
#pragma once
// Removing a run's shared-memory segments from /dev/shm.
//
// libhvd's shm ring transport names every segment "/hvd-<HVD_RUN_ID>-<pid>-<scope hash>-<rank>-
// <random>" (runtime/src/transport/shm/segment_name.cc). A rank unlinks its segment once every
// peer has mapped it; a rank killed between creating it and that barrier leaves the file behind.
// hvdrun removes "/dev/shm/hvd-<run id>-*" when the job ends, and the guard (guard.h) does the
// same when hvdrun itself was killed, so no segment outlives the job. In a Slurm step, `hvdrun
// exec-rank` removes "/dev/shm/hvd-<run id>-<rank pid>-*" on each node when its rank ends
// (exec/rank_parent.h).
//
// Only regular files owned by hvdrun's own user are removed (another user's file of that name
// is left alone; /dev/shm is sticky, so unlink would fail anyway), and nothing is followed: the
// names are read with getdents64 and removed with unlinkat on the directory fd. No allocation
// and no stdio, so the guard may call it in a child forked from a threaded process.

#include <string_view>

namespace hvd::launcher::exec {

/// Whether `run_id` may appear in a file name: 1 to 64 of [0-9A-Za-z_-]. hvdrun's own ids
/// always are (plan::make_run_id); the runtime checks the same before using one.
bool valid_run_id(std::string_view run_id) noexcept;

/// Removes DIR/hvd-<run_id>-* (regular files of this uid). Returns how many were removed.
/// Does nothing for an invalid run id. Async-signal-safe.
int remove_run_segments(const char* run_id, const char* dir = "/dev/shm") noexcept;

/// Removes DIR/hvd-<run_id>-<pid>-*: the segments that process `pid` of the run created (for
/// `hvdrun exec-rank`, whose node may hold other ranks' live segments). As above otherwise.
int remove_process_segments(const char* run_id, long pid, const char* dir = "/dev/shm") noexcept;

}  // namespace hvd::launcher::exec
