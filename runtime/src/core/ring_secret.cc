// SPDX-License-Identifier: Apache-2.0
#include "core/ring_secret.h"

#include "hvd/env_keys.h"

namespace hvd::core {

auth::RunSecret ring_secret(const EnvMap& env, bootstrap::KvStore& store,
                            const bootstrap::WorldInfo& world, std::chrono::milliseconds timeout) {
  if (env.count(env::kRunSecret) != 0) return auth::secret_from_env(env);
  if (world.size == 1) return auth::RunSecret::generate();  // nobody to connect to
  constexpr const char* kKey = "ring/secret";
  if (world.rank == 0) store.set(kKey, auth::RunSecret::generate().hex());
  store.barrier(kKey, timeout);
  return auth::RunSecret::from_hex(store.get(kKey, timeout), "the ring secret shared by rank 0");
}

}  // namespace hvd::core
