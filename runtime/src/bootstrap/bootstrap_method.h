// SPDX-License-Identifier: Apache-2.0
#pragma once
// BootstrapMethod: one way for a rank to learn who it is among the ranks and to get a KvStore
// shared with them (after flux-core's upmi plugins). bootstrap.h chains them.

#include <chrono>
#include <memory>
#include <string>
#include <string_view>

#include "bootstrap/kv_store.h"
#include "bootstrap/world_info.h"
#include "env/env.h"

namespace hvd::bootstrap {

/// What a successful bootstrap gives: this process's place among the ranks, and a store for
/// small values shared with them. The store owns whatever the method started (the connection
/// to hvdrun's store, the PMIx client, MPI); destroying it ends that (PMIx_Finalize, and
/// MPI_Finalize when the bootstrap called MPI_Init), so keep it while the runtime runs.
struct Bootstrapped {
  WorldInfo world;
  std::unique_ptr<KvStore> store;
};

struct BootstrapOptions {
  /// Bound on each wait for the other ranks while starting: connecting to hvdrun's store,
  /// each exchange or fence. A start that waits longer throws TimeoutError.
  std::chrono::milliseconds timeout{std::chrono::seconds(120)};
};

/// A probe's verdict: whether the method fits this environment, and why or why not, in words
/// for the chain's messages ("HOROVOD_RANK not set").
struct Probe {
  bool applies = false;
  std::string reason;
};

class BootstrapMethod {
 public:
  virtual ~BootstrapMethod() = default;
  /// "hvdrun", "pmix", "mpi" or "single": WorldInfo::method and a value of HVD_BOOTSTRAP.
  virtual std::string_view name() const = 0;
  /// Reads `env` only: never starts a library, opens a socket or waits.
  virtual Probe probe(const EnvMap& env) const = 0;
  bool applies(const EnvMap& env) const { return probe(env).applies; }
  /// Starts the method; collective where the method is (every rank calls it). Throws
  /// ConfigError for bad variables, TimeoutError when other ranks do not show up in time,
  /// BootstrapError or BackendError otherwise. Called whether or not probe() applies when
  /// HVD_BOOTSTRAP forces this method.
  virtual Bootstrapped start(const EnvMap& env, const BootstrapOptions& options) = 0;
};

}  // namespace hvd::bootstrap
