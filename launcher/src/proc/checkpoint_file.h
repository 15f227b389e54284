// SPDX-License-Identifier: Apache-2.0
#pragma once
// The checkpoint-notice file (HVD_CHECKPOINT_FILE): a second way, besides the SIGUSR1/SIGUSR2
// itself, for a rank to learn that a checkpoint is due. The process that is the rank's parent
// creates it when the notice arrives: hvdrun for local ranks, `hvdrun exec-rank` on each node of
// a Slurm step. A program polls it with one stat() per step; it needs no signal handler, so it
// also works where a library (NCCL, MPI) owns the signals or in a language without handlers.
//
// It lives in /dev/shm (node-local tmpfs: a stat costs no I/O, and the nodes of a job never
// see each other's) under the run's id, so hvdrun's /dev/shm cleanup removes it with the run's
// segments (exec/shm_cleanup.h); exec-rank removes its own when the rank ends.
//
// Its existence is the notice, and /dev/shm is shared: every user can list it (the run id is in
// the names of the run's segments) and create files there. So the name ends in 128 random bits
// that only the ranks' environment holds: a file another user plants beside it is not the file
// the ranks poll, and cannot stop the job early.

#include <string>

namespace hvd::launcher::proc {

/// /dev/shm/hvd-<run id>-checkpoint-<32 random hex digits> for hvdrun's local ranks (one file
/// for all of them), or /dev/shm/hvd-<run id>-checkpoint.<rank>-<32 hex> for one rank of a
/// Slurm step (rank >= 0). A fresh random part on every call.
std::string checkpoint_file_path(const std::string& run_id, int rank = -1);

/// Creates `path` (empty, mode 0600) if it does not exist; never follows a symlink, never adopts
/// a file another user made. Returns false when it could not (the caller says so; the signal
/// still reaches the ranks).
bool create_checkpoint_file(const std::string& path) noexcept;

/// Removes `path` if it is there.
void remove_checkpoint_file(const std::string& path) noexcept;

}  // namespace hvd::launcher::proc
