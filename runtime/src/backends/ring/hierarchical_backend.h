// SPDX-License-Identifier: Apache-2.0
#pragma once
// HierarchicalBackend: the built-in ring with Horovod's hierarchical allreduce
// (HVD_HIERARCHICAL_ALLREDUCE=1): a reduce-scatter among the ranks of each host (shared
// memory), an allreduce of each rank's block among the ranks with the same local rank on every
// host (TCP), and an allgather within the host. Only one rank per host and block crosses the
// network, so the bytes each host sends drop by a factor of local_size compared with the flat
// ring over TCP. Every other collective runs on the flat transport, as in Horovod.
//
// It needs the same number of ranks on every host (the blocks of one cross group must have the
// same size everywhere); make_hierarchical_backend() checks that collectively and falls back
// to the flat ring when it does not hold.

#include <memory>
#include <string>
#include <vector>

#include "auth/run_secret.h"
#include "backends/ring/ring_backend.h"
#include "bootstrap/kv_store.h"
#include "bootstrap/world_info.h"
#include "transport/transport.h"
#include "transport/transport_factory.h"

namespace hvd::backends::ring {

class HierarchicalBackend final : public RingBackend {
 public:
  /// `flat` spans all ranks; `local` the ranks of this host (rank = local rank); `cross` the
  /// ranks with this local rank on every host (rank = cross rank).
  HierarchicalBackend(std::unique_ptr<Transport> flat, std::string flat_label,
                      std::unique_ptr<Transport> local, std::unique_ptr<Transport> cross);

  void allreduce(BufferView buf, ReduceOp op) override;

 private:
  std::unique_ptr<Transport> local_;
  std::unique_ptr<Transport> cross_;
  std::vector<char> block_;  // this rank's block between the three phases
};

struct HierarchicalKinds {
  std::string flat;   // "shm" or "tcp": the transport of every non-allreduce collective
  std::string local;  // within a host: "shm", or "tcp" when HVD_RING_TRANSPORT=tcp forces it
};

/// Builds the hierarchical backend, or the flat RingBackend when the hosts have different
/// numbers of ranks (rank 0 then prints a warning saying so). Collective over all ranks of
/// the run: it allreduces the local sizes over the flat transport, then every rank builds its
/// host's and its cross group's transports in the same step (see group_store.h), each as
/// `setup` says (with one_host true within the host and false across).
std::unique_ptr<RingBackend> make_hierarchical_backend(const HierarchicalKinds& kinds,
                                                       bootstrap::KvStore& store,
                                                       const bootstrap::WorldInfo& world,
                                                       const auth::RunSecret& secret,
                                                       const TransportSetup& setup);

}  // namespace hvd::backends::ring
