// SPDX-License-Identifier: Apache-2.0
#pragma once
// The "hvd" column of --layer backend: the backend libhvd would pick for host tensors
// (HVD_BACKEND, HVD_RING_TRANSPORT), bootstrapped the way libhvd bootstraps (hvdrun's store,
// PMIx or MPI) and called directly, without negotiation or fusion.

#include <memory>
#include <string>

#include "backends/backend.h"
#include "bench/collective_impl.h"
#include "bootstrap/bootstrap_method.h"
#include "env/env.h"

namespace hvd::bench {

class HvdBackendImpl final : public Impl {
 public:
  /// Collective: bootstraps and connects the backend. Throws what the bootstrap and the
  /// registry throw (ConfigError for a bad HVD_BACKEND, BootstrapError, ...).
  explicit HvdBackendImpl(const EnvMap& env);

  std::string name() const override { return "hvd"; }
  RunOnce prepare(Op op, const std::string& algorithm, Buffers& bufs, ReduceOp redop,
                  int root) override;
  void reduce(std::vector<double>& values, ReduceOp op) override;
  void barrier() override { backend_->barrier(); }

  const bootstrap::WorldInfo& world() const { return boot_.world; }
  /// The store the bootstrap made: the Gloo peer meets over it too.
  bootstrap::KvStore& store() { return *boot_.store; }
  /// "ring/shm", "ring/tcp" or "mpi".
  std::string backend_name() const { return std::string(backend_->name()); }

 private:
  bootstrap::Bootstrapped boot_;  // declared first: the backend goes before the store
  std::unique_ptr<backends::Backend> backend_;
};

}  // namespace hvd::bench
