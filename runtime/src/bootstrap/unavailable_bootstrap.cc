// SPDX-License-Identifier: Apache-2.0
#include "bootstrap/unavailable_bootstrap.h"

#include <utility>

#include "hvd/error.h"
#include "hvd/str_cat.h"

namespace hvd::bootstrap {

UnavailableBootstrap::UnavailableBootstrap(std::string name, std::string option,
                                           std::function<Probe(const EnvMap&)> env_probe)
    : name_(std::move(name)), option_(std::move(option)), env_probe_(std::move(env_probe)) {}

Probe UnavailableBootstrap::probe(const EnvMap& env) const {
  const Probe would = env_probe_(env);
  return {false, str_cat("not built in (configure with -D", option_, "=ON)",
                         would.applies ? ", yet this process was " : "; ", would.reason)};
}

Bootstrapped UnavailableBootstrap::start(const EnvMap& /*env*/,
                                         const BootstrapOptions& /*options*/) {
  throw BootstrapError(str_cat("the ", name_, " method is not built in: configure with -D", option_,
                               "=ON where the library is installed"));
}

}  // namespace hvd::bootstrap
