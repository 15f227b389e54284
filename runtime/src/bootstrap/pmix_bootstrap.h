// SPDX-License-Identifier: Apache-2.0
#pragma once
// PmixBootstrap: a rank started by a PMIx launcher (srun --mpi=pmix, prterun). Rank and size
// from PMIx_Init and PMIX_JOB_SIZE; local rank and size from PMIX_LOCAL_RANK / PMIX_LOCAL_SIZE
// (else from host names); host names and PMIX_NODEID are gathered through the store, and the
// node ids become cross ranks when they number the hosts consistently (else hosts are numbered
// by their lowest rank). The store is an ExchangeStore over PmixExchange
// (put/commit/fence/get); its barrier() is one PMIx_Fence.

#include "bootstrap/bootstrap_method.h"

namespace hvd::bootstrap {

class PmixBootstrap final : public BootstrapMethod {
 public:
  /// `mpi_built_in`: whether the mpi method follows in the chain (see probe_pmix).
  explicit PmixBootstrap(bool mpi_built_in) : mpi_built_in_(mpi_built_in) {}
  std::string_view name() const override { return "pmix"; }
  Probe probe(const EnvMap& env) const override;
  /// PMIx_Init and the queries above. Throws BackendError (PMIx's error string),
  /// TimeoutError from a fence.
  Bootstrapped start(const EnvMap& env, const BootstrapOptions& options) override;

 private:
  bool mpi_built_in_;
};

}  // namespace hvd::bootstrap
