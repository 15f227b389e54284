// SPDX-License-Identifier: Apache-2.0
#pragma once
// How a run connects the members of a new process set (core/process_set.h): the built-in ring
// gets two transports of its own among the members (control and data, over the run's kind,
// shm or tcp, authenticated with the run's secret), rendezvousing over the global control
// channel (core/set_rendezvous.h); HVD_BACKEND=mpi splits the MPI communicator instead
// (MPI_Comm_split, which every rank of the run calls); CUDA tensors get an NCCL communicator
// of the set's own, made when its first CUDA tensor comes, as for the global set.

#include <chrono>
#include <string>

#include "auth/run_secret.h"
#include "bootstrap/world_info.h"
#include "core/process_set.h"
#include "env/env.h"
#include "transport/transport_factory.h"

namespace hvd::core {

/// `host_backend` ("ring" or "mpi") and `ring_kind` ("shm" or "tcp") as the registry chose them
/// for the run; `setup` is the run's transport setup.
SetCommsFactory set_comms_factory(const EnvMap& env, const bootstrap::WorldInfo& world,
                                  const std::string& host_backend, const std::string& ring_kind,
                                  const auth::RunSecret& secret,
                                  const backends::ring::TransportSetup& setup);

}  // namespace hvd::core
