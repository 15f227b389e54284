// SPDX-License-Identifier: Apache-2.0
#pragma once
// Which launcher started this process, told from the environment alone: the probes of the
// bootstrap methods. Pure functions of an EnvMap, compiled into every build, so that a method
// that was not built in can still say what it would have done.

#include "bootstrap/bootstrap_method.h"
#include "env/env.h"

namespace hvd::bootstrap {

/// hvdrun: HOROVOD_RANK and HOROVOD_SIZE plus the store's HVD_STORE_ADDR and HVD_STORE_PORT.
Probe probe_hvdrun(const EnvMap& env);

/// pmix: PMIX_RANK is set (srun --mpi=pmix, prterun). Under Open MPI's mpirun, which also sets
/// it, the probe leaves the process to the mpi method when that one is built in, because a
/// program started by mpirun expects MPI.
Probe probe_pmix(const EnvMap& env, bool mpi_built_in);

/// mpi: any variable an MPI launcher sets (OMPI_COMM_WORLD_SIZE, PMI_SIZE, PMI_RANK, PMIX_RANK,
/// MV2_COMM_WORLD_SIZE).
Probe probe_mpi(const EnvMap& env);

/// single: applies unless a variable says this process is one of several (HOROVOD_SIZE,
/// WORLD_SIZE, OMPI_COMM_WORLD_SIZE, PMI_SIZE, MV2_COMM_WORLD_SIZE, SLURM_STEP_NUM_TASKS > 1):
/// several processes each running alone would silently train separate models.
Probe probe_single(const EnvMap& env);

}  // namespace hvd::bootstrap
