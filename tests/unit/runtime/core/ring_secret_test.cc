// SPDX-License-Identifier: Apache-2.0
// Where the ring's secret comes from: HVD_RUN_SECRET when hvdrun set it, else rank 0's fresh one
// shared through the bootstrap's store (the PMIx and MPI bootstraps).
#include "core/ring_secret.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "fakes/kv_client_store.h"
#include "fakes/thread_world.h"
#include "hvd/env_keys.h"
#include "store/kv_server.h"

using std::chrono::milliseconds;
namespace test = hvd::test;

TEST_CASE("ring secret: HVD_RUN_SECRET when set, else one rank 0 shares through the store") {
  constexpr int kN = 3;
  hvd::store::KvServer server("127.0.0.1", 0, test::test_secret());
  const hvd::auth::RunSecret given = hvd::auth::RunSecret::generate();
  std::vector<std::string> from_env(kN), shared(kN);
  test::spawn(kN, [&](int rank) {
    test::KvClientStore store(server.port(), kN);
    hvd::bootstrap::WorldInfo world;
    world.rank = rank;
    world.size = kN;
    const hvd::EnvMap env = {{hvd::env::kRunSecret, given.hex()}};
    from_env[static_cast<size_t>(rank)] =
        hvd::core::ring_secret(env, store, world, milliseconds(20000)).hex();
    shared[static_cast<size_t>(rank)] =
        hvd::core::ring_secret({}, store, world, milliseconds(20000)).hex();
  });
  CHECK(from_env == std::vector<std::string>(kN, given.hex()));
  CHECK(shared == std::vector<std::string>(kN, shared[0]));
  CHECK(shared[0] != given.hex());
}
