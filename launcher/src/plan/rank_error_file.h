// SPDX-License-Identifier: Apache-2.0
#pragma once
// The TORCHELASTIC_ERROR_FILE each rank gets when the user set one for hvdrun: a file of its
// own in hvdrun's folder for the run (exec/torchelastic_errors.h), named after the attempt and
// the rank, so that a restarted job's ranks never read or overwrite the last attempt's.

#include <string>

#include "config/env_map.h"

namespace hvd::launcher::plan {

/// DIR/attempt_<attempt>.rank_<rank>.json: flat, so that no folder has to be made per rank.
std::string rank_error_file(const std::string& dir, int attempt, int rank);

/// For a Slurm task (exec-rank): TORCHELASTIC_ERROR_FILE for `rank` when hvdrun passed its
/// folder (HVD_RANK_ERROR_DIR) in `inherited`, with the attempt from
/// TORCHELASTIC_RESTART_COUNT; empty when it did not.
std::string task_error_file(const EnvMap& inherited, int rank);

}  // namespace hvd::launcher::plan
