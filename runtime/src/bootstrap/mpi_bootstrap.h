// SPDX-License-Identifier: Apache-2.0
#pragma once
// MpiBootstrap: a rank started by mpirun / mpiexec. The probe only reads the launcher's
// variables; MPI_Init_thread runs in start(), and only when this method is chosen. Rank and
// size from a duplicate of MPI_COMM_WORLD; local rank and size from MPI_Comm_split_type
// (MPI_COMM_TYPE_SHARED); cross rank and size from host names gathered through the store, an
// ExchangeStore over MpiExchange (allgather).

#include "bootstrap/bootstrap_method.h"

namespace hvd::bootstrap {

class MpiBootstrap final : public BootstrapMethod {
 public:
  std::string_view name() const override { return "mpi"; }
  Probe probe(const EnvMap& env) const override;
  /// Throws BackendError (MPI's error string), TimeoutError from an exchange.
  Bootstrapped start(const EnvMap& env, const BootstrapOptions& options) override;
};

}  // namespace hvd::bootstrap
