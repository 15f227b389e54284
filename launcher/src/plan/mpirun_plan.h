// SPDX-License-Identifier: Apache-2.0
#pragma once
// The plan of `hvdrun --mpi -np N -- CMD` on this machine: the ranks are started by Open MPI's
// mpirun, so that MPI programs (mpi4py, an MPI-built Horovod, libhvd's MPI backend) get a real
// COMM_WORLD. hvdrun still resolves the settings, exports its per-run variables, tags the
// output its own way, forwards signals and returns the failed rank's code.
//
// Not set under --mpi: the per-rank variables (RANK, HOROVOD_RANK, ...; mpirun gives all ranks
// one environment, and the rank comes from MPI itself), HVD_STORE_* (libhvd bootstraps through
// MPI under mpirun), and TF_CONFIG.

#include <cstdint>
#include <string>

#include "plan/launch_plan.h"
#include "plan/launch_request.h"

namespace hvd::launcher::plan {

/// `mpirun` is its path; `master_port` a free port for MASTER_PORT. Pure. (--tf-config is
/// refused before: TF_CONFIG differs per rank, and mpirun gives all ranks one environment.)
LaunchPlan build_mpirun_plan(const LaunchRequest& request, const MachineFacts& facts,
                             const std::string& mpirun, uint16_t master_port,
                             bool as_root, const std::string& program);

}  // namespace hvd::launcher::plan
