// SPDX-License-Identifier: Apache-2.0
#pragma once
// UnavailableBootstrap: the stand-in for a method this build lacks (PMIx or MPI not found, or
// switched off), so that the chain can still say that it exists, why it was not used, and
// whether the environment suggests it was wanted.

#include <functional>
#include <string>

#include "bootstrap/bootstrap_method.h"

namespace hvd::bootstrap {

class UnavailableBootstrap final : public BootstrapMethod {
 public:
  /// `option` is the CMake option that builds it in ("HVD_WITH_PMIX"); `env_probe` is what the
  /// real method's probe would say.
  UnavailableBootstrap(std::string name, std::string option,
                       std::function<Probe(const EnvMap&)> env_probe);

  std::string_view name() const override { return name_; }
  /// Never applies; the reason names the option and what the environment says.
  Probe probe(const EnvMap& env) const override;
  /// Always throws BootstrapError (reached only when HVD_BOOTSTRAP forces this method).
  Bootstrapped start(const EnvMap& env, const BootstrapOptions& options) override;

 private:
  std::string name_;
  std::string option_;
  std::function<Probe(const EnvMap&)> env_probe_;
};

}  // namespace hvd::bootstrap
