// SPDX-License-Identifier: Apache-2.0
#include "bootstrap/bootstrap.h"

#include <exception>
#include <string>
#include <vector>

#include "bootstrap/hvdrun_bootstrap.h"
#include "bootstrap/launch_probe.h"
#include "bootstrap/single_bootstrap.h"
#include "bootstrap/topology.h"
#include "bootstrap/unavailable_bootstrap.h"
#include "hvd/build_config.h"
#include "hvd/env_keys.h"
#include "hvd/error.h"
#include "hvd/str_cat.h"
#if HVD_HAVE_PMIX
#include "bootstrap/pmix_bootstrap.h"
#endif
#if HVD_HAVE_MPI
#include "bootstrap/mpi_bootstrap.h"
#endif

namespace hvd::bootstrap {
namespace {

constexpr const char* kAuto = "auto";

// The chosen method's failure, with the chain's account of it; keeps the failure's kind.
[[noreturn]] void fail_as(ErrorCode cause, const std::string& text) {
  if (cause == ErrorCode::kTimeout) throw TimeoutError(text);
  if (cause == ErrorCode::kConfig) throw ConfigError(text);
  throw BootstrapError(text);
}

std::string names_of(const MethodChain& chain, const char* separator) {
  std::string text;
  for (const auto& m : chain) text += str_cat(text.empty() ? "" : separator, m->name());
  return text;
}

// Starts `method`; on failure throws with `lines` (the methods before it) and what happened.
Bootstrapped start_or_explain(BootstrapMethod& method, const Probe& probe, const EnvMap& env,
                              const BootstrapOptions& options, const std::string& header,
                              std::vector<std::string> lines,
                              const std::vector<std::string>& untried) {
  ErrorCode cause = ErrorCode::kBootstrap;
  std::string why;
  try {
    Bootstrapped b = method.start(env, options);
    HVD_CHECK(b.store != nullptr, "method ", method.name(), " returned no store");
    b.world.method = std::string(method.name());
    check_world(b.world);
    return b;
  } catch (const Error& e) {
    cause = e.code();
    why = e.what();
  } catch (const std::exception& e) {
    why = e.what();
  }
  lines.push_back(str_cat(method.name(), ": ", probe.reason, ", but failed: ", why));
  for (const std::string& name : untried) lines.push_back(str_cat(name, ": not tried"));
  std::string text = header;
  for (const std::string& line : lines) text += "\n  " + line;
  fail_as(cause, text);
}

}  // namespace

MethodChain default_chain() {
  MethodChain chain;
  chain.push_back(std::make_unique<HvdrunBootstrap>());
#if HVD_HAVE_PMIX
  chain.push_back(std::make_unique<PmixBootstrap>(/*mpi_built_in=*/HVD_HAVE_MPI != 0));
#else
  chain.push_back(std::make_unique<UnavailableBootstrap>(
      "pmix", "HVD_WITH_PMIX", [](const EnvMap& env) { return probe_pmix(env, HVD_HAVE_MPI); }));
#endif
#if HVD_HAVE_MPI
  chain.push_back(std::make_unique<MpiBootstrap>());
#else
  chain.push_back(std::make_unique<UnavailableBootstrap>("mpi", "HVD_WITH_MPI", probe_mpi));
#endif
  chain.push_back(std::make_unique<SingleBootstrap>());
  return chain;
}

Bootstrapped run_chain(const MethodChain& chain, const EnvMap& env,
                       const BootstrapOptions& options) {
  std::vector<std::string> choices = {kAuto};
  for (const auto& m : chain) choices.emplace_back(m->name());
  const std::string forced = env_choice(env, env::kBootstrap, choices, kAuto);

  if (forced != kAuto) {
    for (const auto& m : chain) {
      if (m->name() != forced) continue;
      Probe probe = m->probe(env);
      probe.reason =
          str_cat("forced by ", env::kBootstrap, "=", forced, " (its probe: ", probe.reason, ")");
      return start_or_explain(*m, probe, env, options,
                              str_cat("bootstrap: the forced method failed:"), {}, {});
    }
  }
  std::vector<std::string> lines;
  for (size_t i = 0; i < chain.size(); ++i) {
    BootstrapMethod& m = *chain[i];
    const Probe probe = m.probe(env);
    if (!probe.applies) {
      lines.push_back(str_cat(m.name(), ": ", probe.reason));
      continue;
    }
    std::vector<std::string> untried;
    for (size_t j = i + 1; j < chain.size(); ++j) untried.emplace_back(chain[j]->name());
    return start_or_explain(m, probe, env, options,
                            str_cat("bootstrap: method '", m.name(), "' applies but failed:"),
                            lines, untried);
  }
  std::string text = "bootstrap: no method applies to this process:";
  for (const std::string& line : lines) text += "\n  " + line;
  text += str_cat("\nSet ", env::kBootstrap, " to ", names_of(chain, ", "), " to force one.");
  throw BootstrapError(text);
}

Bootstrapped bootstrap(const EnvMap& env, const BootstrapOptions& options) {
  return run_chain(default_chain(), env, options);
}

BootstrapOptions bootstrap_options_from_env(const EnvMap& env) {
  BootstrapOptions options;
  const int64_t seconds = env_int64(env, env::kBootstrapTimeout, options.timeout.count() / 1000, 1,
                                    int64_t{7} * 24 * 3600);
  options.timeout = std::chrono::seconds(seconds);
  return options;
}

}  // namespace hvd::bootstrap
