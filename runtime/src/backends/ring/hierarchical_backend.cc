// SPDX-License-Identifier: Apache-2.0
#include "backends/ring/hierarchical_backend.h"

#include <cstdint>
#include <iostream>
#include <vector>

#include "backends/ring/collectives.h"
#include "backends/ring/group_store.h"
#include "hvd/env_keys.h"
#include "hvd/str_cat.h"
#include "transport/transport_factory.h"

namespace hvd::backends::ring {
namespace {

// Element blocks of `count` over `parts` ranks: the first count % parts get one more.
std::vector<size_t> split_blocks(size_t count, int parts) {
  const auto n = static_cast<size_t>(parts);
  std::vector<size_t> blocks(n, count / n);
  for (size_t i = 0; i < count % n; ++i) ++blocks[i];
  return blocks;
}

// True on every rank when every host has the same number of ranks. Collective over `flat`:
// local_size itself cannot tell, as each rank sees only its own host.
TransportSetup with_one_host(TransportSetup setup, bool one_host) {
  setup.one_host = one_host;
  return setup;
}

bool same_ranks_per_host(Transport& flat, int local_size) {
  int32_t min_max[2] = {local_size, -local_size};
  allreduce(flat, BufferView{min_max, 2, DataType::kInt32, {}}, ReduceOp::kMin);
  return min_max[0] == -min_max[1];
}

}  // namespace

HierarchicalBackend::HierarchicalBackend(std::unique_ptr<Transport> flat, std::string flat_label,
                                         std::unique_ptr<Transport> local,
                                         std::unique_ptr<Transport> cross)
    : RingBackend(std::move(flat), "hierarchical/" + flat_label),
      local_(std::move(local)),
      cross_(std::move(cross)) {}

void HierarchicalBackend::allreduce(BufferView buf, ReduceOp op) {
  const std::vector<size_t> blocks = split_blocks(buf.count, local_->size());
  // reducescatter needs an output apart from its input: a persistent block (1/local_size of
  // the largest tensor so far), so a training step allocates nothing.
  const size_t mine_count = blocks[static_cast<size_t>(local_->rank())];
  if (block_.size() < mine_count * dtype_size(buf.dtype)) {
    block_.resize(mine_count * dtype_size(buf.dtype));
  }
  BufferView mine{block_.data(), mine_count, buf.dtype, buf.device};
  ring::reducescatter(*local_, buf, mine, blocks, op);
  ring::allreduce(*cross_, mine, op);
  // Each host now holds the full reduction in pieces; gather them back into every rank.
  ring::allgatherv(*local_, mine, buf, blocks);
}

std::unique_ptr<RingBackend> make_hierarchical_backend(const HierarchicalKinds& kinds,
                                                       bootstrap::KvStore& store,
                                                       const bootstrap::WorldInfo& world,
                                                       const auth::RunSecret& secret,
                                                       const TransportSetup& setup) {
  std::unique_ptr<Transport> flat =
      make_transport(kinds.flat, store, world.rank, world.size, "data", secret, setup);
  if (!same_ranks_per_host(*flat, world.local_size)) {
    if (world.rank == 0) {
      std::cerr << "libhvd: warning: " << env::kHierarchicalAllreduce
                << " is set, but the hosts run different numbers of ranks; using the flat ring"
                << std::endl;
    }
    return std::make_unique<RingBackend>(std::move(flat), kinds.flat);
  }
  GroupStore host_store(store, str_cat("host", world.cross_rank));
  std::unique_ptr<Transport> local =
      make_transport(kinds.local, host_store, world.local_rank, world.local_size, "hier-local",
                     secret, with_one_host(setup, true));
  GroupStore cross_store(store, str_cat("local-rank", world.local_rank));
  std::unique_ptr<Transport> cross =
      make_transport("tcp", cross_store, world.cross_rank, world.cross_size, "hier-cross", secret,
                     with_one_host(setup, false));
  return std::make_unique<HierarchicalBackend>(std::move(flat), kinds.flat, std::move(local),
                                               std::move(cross));
}

}  // namespace hvd::backends::ring
