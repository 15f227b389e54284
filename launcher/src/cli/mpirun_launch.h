// SPDX-License-Identifier: Apache-2.0
#pragma once
// `hvdrun --mpi -np N -- CMD` on this machine: the ranks are started by Open MPI's mpirun, so
// that MPI programs (mpi4py, an MPI-built Horovod, libhvd's MPI backend) get a real
// COMM_WORLD. hvdrun still resolves the settings, exports its per-run variables, tags the
// output its own way, forwards signals and returns the failed rank's code.
//
// Not set under --mpi: the per-rank variables (RANK, HOROVOD_RANK, ...; mpirun gives all ranks
// one environment, and the rank comes from MPI itself), HVD_STORE_* (libhvd bootstraps through
// MPI under mpirun), and TF_CONFIG.

#include "config/env_map.h"
#include "config/run_options.h"

namespace hvd::launcher::cli {

/// Prints the mpirun line (--dry-run) or runs it; returns hvdrun's exit code. Throws
/// LaunchError (exit 5) when mpirun is not installed.
int run_mpirun(const config::RunOptions& opts, const EnvMap& env);

}  // namespace hvd::launcher::cli
