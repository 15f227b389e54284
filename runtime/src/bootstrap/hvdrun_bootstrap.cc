// SPDX-License-Identifier: Apache-2.0
#include "bootstrap/hvdrun_bootstrap.h"

#include <memory>

#include "bootstrap/launch_probe.h"
#include "bootstrap/rendezvous_store.h"
#include "bootstrap/topology.h"
#include "hvd/env_keys.h"
#include "store/kv_client.h"

namespace hvd::bootstrap {
namespace {

constexpr int kMaxRanks = 1 << 24;
constexpr const char* kSetByHvdrun = "hvdrun sets it for every rank";

}  // namespace

Probe HvdrunBootstrap::probe(const EnvMap& env) const { return probe_hvdrun(env); }

Bootstrapped HvdrunBootstrap::start(const EnvMap& env, const BootstrapOptions& options) {
  WorldInfo w;
  w.method = "hvdrun";
  w.size = env_required_int(env, env::kSize, 1, kMaxRanks, kSetByHvdrun);
  w.rank = env_required_int(env, env::kRank, 0, w.size - 1, kSetByHvdrun);
  w.hostname = env_string(env, env::kHostname, "");
  if (w.hostname.empty()) w.hostname = this_host_name();

  const bool has_local = env_has(env, env::kLocalRank) && env_has(env, env::kLocalSize);
  const bool has_cross = env_has(env, env::kCrossRank) && env_has(env, env::kCrossSize);
  if (has_local) {
    w.local_size = env_int(env, env::kLocalSize, 1, 1, w.size);
    w.local_rank = env_int(env, env::kLocalRank, 0, 0, w.local_size - 1);
  }
  if (has_cross) {
    w.cross_size = env_int(env, env::kCrossSize, 1, 1, w.size);
    w.cross_rank = env_int(env, env::kCrossRank, 0, 0, w.cross_size - 1);
  }

  auto store =
      std::make_unique<RendezvousStore>(store::connect_from_env(env, options.timeout),
                                        env_string(env, env::kRunId, "no-run-id"), w.rank, w.size);
  fill_from_hostnames(w, *store, !has_local, !has_cross, options.timeout);
  check_world(w);
  return {std::move(w), std::move(store)};
}

}  // namespace hvd::bootstrap
