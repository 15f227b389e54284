// SPDX-License-Identifier: Apache-2.0
// A transport's setup waits for the other ranks only as long as it is told (libhvd passes
// HVD_BOOTSTRAP_TIMEOUT through make_transport()), and then says how long that was and which
// rank never came.
#include <doctest/doctest.h>

#include <chrono>
#include <map>
#include <memory>
#include <string>

#include "fakes/kv_client_store.h"
#include "hvd/error.h"
#include "store/kv_server.h"
#include "transport/setup_timeout.h"
#include "transport/transport_factory.h"

namespace ring = hvd::backends::ring;
using std::chrono::milliseconds;

namespace {

// Rank `rank` of 3 builds a transport alone: the other two never show up.
std::string setup_alone(const std::string& kind, int rank, milliseconds timeout) {
  hvd::store::KvServer server("127.0.0.1", 0, hvd::test::test_secret());
  hvd::test::KvClientStore store(server.port(), 3);
  ring::TransportSetup setup;
  setup.one_host = true;
  setup.timeout = timeout;
  try {
    ring::make_transport(kind, store, rank, 3, "alone", hvd::test::test_secret(), setup);
  } catch (const hvd::TimeoutError& e) {
    return e.what();
  }
  return "no TimeoutError";
}

// A store that holds the keys it is given and has nothing else.
class MapStore final : public hvd::bootstrap::KvStore {
 public:
  std::map<std::string, std::string> keys;
  bool can_tell = true;
  void set(const std::string& key, const std::string& value) override { keys[key] = value; }
  std::string get(const std::string& key, milliseconds) override {
    if (keys.count(key) != 0) return keys[key];
    if (!can_tell) throw hvd::BootstrapError("values travel only at barriers");
    throw hvd::TimeoutError("not there");
  }
  void barrier(const std::string&, milliseconds) override {}
};

}  // namespace

TEST_CASE("ring setup: a peer that never shows up is a TimeoutError naming the bound and it") {
  for (const char* kind : {"tcp", "shm"}) {
    CAPTURE(kind);
    const std::string error = setup_alone(kind, 1, milliseconds(300));
    CHECK(error.find(std::string("ring ") + kind +
                     ": rank 1: setup did not finish within 300 ms") != std::string::npos);
    CHECK(error.find("HVD_BOOTSTRAP_TIMEOUT") != std::string::npos);
    CHECK(error.find("ranks 0, 2 never showed up") != std::string::npos);
  }
}

TEST_CASE("ring setup: the missing ranks are those whose key is not in the store") {
  MapStore store;
  const auto key = [](int r) { return "s/" + std::to_string(r); };
  store.set(key(0), "x");
  store.set(key(2), "x");
  CHECK(ring::unpublished_ranks(store, key, 4, 0) == "ranks 1, 3");
  store.set(key(1), "x");
  CHECK(ring::unpublished_ranks(store, key, 4, 0) == "rank 3");
  store.set(key(3), "x");
  CHECK(ring::unpublished_ranks(store, key, 4, 0).empty());
  SUBCASE("a store that cannot look without a barrier names nobody") {
    MapStore blind;
    blind.can_tell = false;
    CHECK(ring::unpublished_ranks(blind, key, 4, 0).empty());
  }
  SUBCASE("a long list is cut, and a large run is looked at only in part") {
    MapStore empty;
    CHECK(ring::unpublished_ranks(empty, key, 12, 0) == "ranks 1, 2, 3, 4, 5, 6, 7, 8 and 3 more");
    CHECK(ring::unpublished_ranks(empty, key, 1000, 0) ==
          "ranks 1, 2, 3, 4, 5, 6, 7, 8 and 247 more (of the first 256)");
  }
}
