// SPDX-License-Identifier: Apache-2.0
#pragma once
// Registry: which backends this build has and which one runs. The only place (with
// bootstrap.cc) that looks at HVD_HAVE_*. Host tensors: the built-in ring (the default), over
// shared memory when every rank is on one host and over TCP otherwise (HVD_RING_TRANSPORT
// forces one), or MPI when built in and HVD_BACKEND=mpi. CUDA tensors: the GPU lane (NCCL and
// CUDA kernels), in a build with CUDA and NCCL.

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "auth/run_secret.h"
#include "backends/backend.h"
#include "backends/lane.h"
#include "backends/rank0_broadcast.h"
#include "bootstrap/kv_store.h"
#include "bootstrap/world_info.h"
#include "env/env.h"
#include "transport/transport.h"
#include "transport/transport_factory.h"

namespace hvd::backends {

/// "shm" or "tcp", from HVD_RING_TRANSPORT (auto, shm, tcp) and the world's shape. Throws
/// ConfigError for another value, or for shm when the ranks span several hosts.
std::string choose_ring_transport(const EnvMap& env, const bootstrap::WorldInfo& world);

/// A connected transport of `kind` among all ranks; `scope` keeps the store keys of several
/// transports apart, `secret` is what TCP connections prove. Collective: every rank calls it
/// with the same kind, scope and secret.
std::unique_ptr<ring::Transport> make_ring_transport(
    const std::string& kind, bootstrap::KvStore& store, const bootstrap::WorldInfo& world,
    const std::string& scope, const auth::RunSecret& secret, const ring::TransportSetup& setup);

/// "ring" or "mpi", from HVD_BACKEND (auto, ring, mpi; auto is the ring). Reads `env` only.
/// Throws ConfigError for another value, or for mpi in a build without MPI (naming
/// -DHVD_WITH_MPI=ON).
std::string choose_host_backend(const EnvMap& env);

/// The backend for host tensors: `backend` from choose_host_backend(); the ring runs over a
/// transport of `ring_kind` (choose_ring_transport()), and with HOROVOD_HIERARCHICAL_ALLREDUCE
/// its allreduce goes through the hosts (ring/hierarchical_backend.h). Collective: every rank calls
/// it with the same arguments. The MPI backend reads `env` to tell whether an MPI launcher started
/// the process, and throws ConfigError when none did (see backends/mpi/mpi_backend.h). The
/// ring's transports are set up as `setup` says (transport_setup()).
std::unique_ptr<Backend> make_host_backend(const std::string& backend, const std::string& ring_kind,
                                           const EnvMap& env, bootstrap::KvStore& store,
                                           const bootstrap::WorldInfo& world,
                                           const auth::RunSecret& secret,
                                           const ring::TransportSetup& setup);

/// HVD_BACKEND=mpi: the backend of a process set of `ranks` (sorted, of the run), from `global`,
/// the run's MPI backend, by MPI_Comm_split. Collective over every rank of the run; null on the
/// ranks outside the set. InternalError when `global` is not an MPI backend.
std::unique_ptr<Backend> split_mpi_backend(Backend& global, const std::vector<int>& ranks);

/// Whether this libhvd has the GPU lane (built with CUDA and NCCL).
bool has_gpu_backend();

/// How long a CUDA-tensor collective may take: HVD_NCCL_TIMEOUT seconds, default 60. Throws
/// ConfigError for a malformed value.
std::chrono::milliseconds gpu_timeout(const EnvMap& env);

/// The lane for CUDA tensors on `device` (NCCL and CUDA kernels on one stream); NCCL's id goes
/// from rank 0 to the others over `broadcast`. Collective: every rank calls it for the same
/// response, from the background loop. Only when has_gpu_backend(); throws what
/// nccl::make_nccl_lane() throws.
Lane make_gpu_lane(const Rank0Broadcast& broadcast, const bootstrap::WorldInfo& world,
                   Device device, std::chrono::milliseconds timeout);

}  // namespace hvd::backends
