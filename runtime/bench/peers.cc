// SPDX-License-Identifier: Apache-2.0
#include "bench/peers.h"

#include "hvd/build_config.h"
#include "hvd/error.h"
#if HVD_HAVE_MPI
#include "bench/mpi_peer.h"
#endif
#if HVD_BENCH_HAVE_GLOO
#include "bench/gloo_peer.h"
#endif

namespace hvd::bench {
namespace {

void add_mpi(const Options& o, Peers& peers) {
#if HVD_HAVE_MPI
  (void)o;
  if (mpi_running()) {
    peers.impls.push_back(std::make_unique<MpiPeer>());
  } else {
    peers.notes.push_back(
        "no MPI peer: MPI is not running in this process (launch with mpirun -np N for it)");
  }
#else
  if (o.peers_explicit) {
    throw UsageError("--peers mpi: this hvd-bench was built without MPI (-DHVD_WITH_MPI=ON)");
  }
  peers.notes.push_back("no MPI peer: built without MPI");
#endif
}

void add_gloo(const Options& o, bootstrap::KvStore* kv, const bootstrap::WorldInfo& world,
              Peers& peers) {
#if HVD_BENCH_HAVE_GLOO
  (void)o;
  if (kv == nullptr) {
    peers.notes.push_back(
        "no Gloo peer: it meets the other ranks through the bootstrap store, "
        "which only --layer backend has");
    return;
  }
  peers.impls.push_back(make_gloo_peer(*kv, world));
#else
  (void)kv;
  (void)world;
  if (o.peers_explicit) {
    throw UsageError(
        "--peers gloo: this hvd-bench was built without Gloo (libgloo-dev, -DHVD_WITH_GLOO=ON)");
  }
  peers.notes.push_back("no Gloo peer: built without Gloo (libgloo-dev)");
#endif
}

}  // namespace

Peers make_peers(const Options& o, bootstrap::KvStore* kv, const bootstrap::WorldInfo& world) {
  Peers peers;
  if (o.want_mpi) add_mpi(o, peers);
  if (o.want_gloo) add_gloo(o, kv, world, peers);
  return peers;
}

}  // namespace hvd::bench
