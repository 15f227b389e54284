// SPDX-License-Identifier: Apache-2.0
#pragma once
// Which peers run beside hvd: the one place (for hvd-bench) that looks at what was built in.
// A peer that cannot run here is left out with a note (MPI under hvdrun, Gloo without a
// bootstrap store), or is an error when --peers named it and it was not built in.

#include <memory>
#include <string>
#include <vector>

#include "bench/bench_options.h"
#include "bench/collective_impl.h"
#include "bootstrap/kv_store.h"
#include "bootstrap/world_info.h"

namespace hvd::bench {

struct Peers {
  std::vector<std::unique_ptr<Impl>> impls;
  std::vector<std::string> notes;  // one line each, printed under the table's header
};

/// `kv` is the bootstrap store of --layer backend, null for --layer runtime (Gloo then has no
/// way to meet the other ranks). Collective. Throws UsageError when --peers names a peer this
/// build lacks.
Peers make_peers(const Options& options, bootstrap::KvStore* kv, const bootstrap::WorldInfo& world);

}  // namespace hvd::bench
