// SPDX-License-Identifier: Apache-2.0
#include "backends/registry.h"

#include <iostream>

#include "backends/ring/hierarchical_backend.h"
#include "backends/ring/ring_backend.h"
#include "bootstrap/launch_probe.h"
#include "hvd/build_config.h"
#include "hvd/env_keys.h"
#include "hvd/error.h"
#if HVD_HAVE_MPI
#include "backends/mpi/mpi_backend.h"
#endif
#if HVD_HAVE_GPU_BACKEND
#include "backends/nccl/nccl_lane.h"
#endif

namespace hvd::backends {

std::string choose_ring_transport(const EnvMap& env, const bootstrap::WorldInfo& world) {
  const std::string wanted = env_string(env, env::kRingTransport, "auto");
  const bool one_host = world.cross_size == 1;
  if (wanted == "auto") return one_host ? "shm" : "tcp";
  if (wanted == "tcp") return "tcp";
  if (wanted == "shm") {
    if (!one_host) {
      throw ConfigError(str_cat(env::kRingTransport, "=shm, but the ranks are on ",
                                world.cross_size, " hosts; shared memory works within one host"));
    }
    return "shm";
  }
  throw ConfigError(str_cat(env::kRingTransport, "='", wanted, "' is not auto, shm or tcp"));
}

std::unique_ptr<ring::Transport> make_ring_transport(
    const std::string& kind, bootstrap::KvStore& store, const bootstrap::WorldInfo& world,
    const std::string& scope, const auth::RunSecret& secret, const ring::TransportSetup& setup) {
  return ring::make_transport(kind, store, world.rank, world.size, scope, secret, setup);
}

std::string choose_host_backend(const EnvMap& env) {
  const std::string wanted = env_choice(env, env::kBackend, {"auto", "ring", "mpi"}, "auto");
  if (wanted != "mpi") return "ring";
#if !HVD_HAVE_MPI
  throw ConfigError(str_cat(env::kBackend, "=mpi, but this libhvd was built without MPI; ",
                            "rebuild with -DHVD_WITH_MPI=ON (needs an MPI installation), or use ",
                            env::kBackend, "=ring"));
#endif
  return "mpi";
}

std::unique_ptr<Backend> make_host_backend(const std::string& backend, const std::string& ring_kind,
                                           const EnvMap& env, bootstrap::KvStore& store,
                                           const bootstrap::WorldInfo& world,
                                           const auth::RunSecret& secret,
                                           const ring::TransportSetup& setup) {
  const bool hierarchical = env_bool(env, env::kHierarchicalAllreduce, false);
#if HVD_HAVE_MPI
  if (backend == "mpi") {
    if (hierarchical && world.rank == 0) {
      std::cerr << "libhvd: warning: " << env::kHierarchicalAllreduce << " applies to the "
                << "built-in ring; with " << env::kBackend << "=mpi the MPI library picks "
                << "its own algorithm" << std::endl;
    }
    return std::make_unique<mpi::MpiBackend>(world, bootstrap::probe_mpi(env));
  }
#endif
  HVD_CHECK(backend == "ring", "unknown host backend '", backend, "'");
  if (hierarchical) {
    // Within a host the ranks share memory unless TCP was forced for everything.
    const std::string local = env_string(env, env::kRingTransport, "auto") == "tcp" ? "tcp" : "shm";
    return ring::make_hierarchical_backend({ring_kind, local}, store, world, secret, setup);
  }
  return std::make_unique<ring::RingBackend>(
      make_ring_transport(ring_kind, store, world, "data", secret, setup), ring_kind);
}

std::unique_ptr<Backend> split_mpi_backend(Backend& global, const std::vector<int>& ranks) {
#if HVD_HAVE_MPI
  auto* mpi = dynamic_cast<mpi::MpiBackend*>(&global);
  HVD_CHECK(mpi != nullptr, "split_mpi_backend on the '", global.name(), "' backend");
  return mpi->split(ranks);
#else
  HVD_CHECK(false, "split_mpi_backend in a build without MPI (", global.name(), ", ",
            ranks.size(), " ranks)");
  return nullptr;
#endif
}

bool has_gpu_backend() { return HVD_HAVE_GPU_BACKEND != 0; }

std::chrono::milliseconds gpu_timeout(const EnvMap& env) {
  const double seconds = env_double(env, env::kNcclTimeout, 60.0, 0.001, 1e7);
  return std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000));
}

Lane make_gpu_lane(const Rank0Broadcast& broadcast, const bootstrap::WorldInfo& world,
                   Device device, std::chrono::milliseconds timeout) {
#if HVD_HAVE_GPU_BACKEND
  return nccl::make_nccl_lane(broadcast, world, device, timeout);
#else
  (void)broadcast, (void)world, (void)timeout;
  throw InternalError(
      str_cat("make_gpu_lane(cuda:", device.index, ") in a build without the GPU backend"));
#endif
}

}  // namespace hvd::backends
