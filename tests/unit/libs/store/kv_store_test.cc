// SPDX-License-Identifier: Apache-2.0
// KvServer and KvClient together over loopback TCP. Timeouts here are either short ones that
// must expire (nothing is asserted about how long they took) or generous liveness bounds.
#include <doctest/doctest.h>
#include <sys/socket.h>

#include <atomic>
#include <chrono>
#include <future>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "auth/handshake.h"
#include "auth/run_secret.h"
#include "hvd/env_keys.h"
#include "hvd/error.h"
#include "kv_test_peer.h"
#include "net/socket.h"
#include "store/kv_client.h"
#include "store/kv_protocol.h"
#include "store/kv_server.h"

namespace net = hvd::net;
namespace store = hvd::store;
using std::chrono::milliseconds;
using namespace hvd::test::kv;  // NOLINT: the shared helpers, by their short names

namespace {

constexpr milliseconds kShort(200);  // a timeout that is meant to expire

// A raw, authenticated connection for speaking (bad) protocol by hand.
net::Fd raw_connection(const store::KvServer& server) {
  net::Fd fd = net::connect_tcp("127.0.0.1", server.port(), kLong);
  hvd::auth::prove_as_initiator(fd.get(), secret(), store::kAuthPurpose,
                                std::chrono::steady_clock::now() + kLong);
  return fd;
}

// Runs fn on a thread; checks that it finishes within the liveness bound.
template <typename Fn>
auto finishes(Fn fn) {
  auto result = std::async(std::launch::async, std::move(fn));
  REQUIRE(result.wait_for(kLong) == std::future_status::ready);
  return result.get();
}

}  // namespace

TEST_CASE("kv store: set get try_get del add") {
  store::KvServer server("127.0.0.1", 0, secret());
  store::KvClient c = client_of(server);
  c.ping();
  CHECK_FALSE(c.try_get("k").has_value());
  c.set("k", "v1");
  CHECK(c.try_get("k") == std::optional<std::string>("v1"));
  c.set("k", std::string("v\0 2", 4));
  CHECK(c.get("k", kLong) == std::string("v\0 2", 4));
  c.set("empty", "");
  CHECK(c.try_get("empty") == std::optional<std::string>(""));
  CHECK(c.del("k"));
  CHECK_FALSE(c.del("k"));
  CHECK_FALSE(c.try_get("k").has_value());

  CHECK(c.add("n", 5) == 5);
  CHECK(c.add("n", -2) == 3);
  CHECK(c.try_get("n") == std::optional<std::string>("3"));  // counters are decimal text

  SUBCASE("ADD on a value that is not a counter is refused; the connection stays usable") {
    c.set("text", "hello");
    CHECK_THROWS_WITH_AS(c.add("text", 1), doctest::Contains("not a 64-bit integer"),
                         hvd::BootstrapError);
    CHECK(c.add("n", 1) == 4);
  }
  SUBCASE("a request over the limits is refused before it is sent") {
    CHECK_THROWS_AS(c.set(std::string(store::kMaxKeyBytes + 1, 'k'), "v"), hvd::BootstrapError);
    c.ping();
  }
  SUBCASE("clients share one map") {
    store::KvClient other = client_of(server);
    CHECK(other.try_get("n") == std::optional<std::string>("3"));
  }
}

TEST_CASE("kv store: WAIT is answered by another client's later SET") {
  store::KvServer server("127.0.0.1", 0, secret());
  store::KvClient setter = client_of(server);
  auto waiter = std::async(std::launch::async, [&server] {
    store::KvClient c = client_of(server);
    return c.get("late", kLong);
  });
  std::this_thread::sleep_for(milliseconds(50));  // usually parks the WAIT first; either is fine
  setter.set("late", "here");
  REQUIRE(waiter.wait_for(kLong) == std::future_status::ready);
  CHECK(waiter.get() == "here");

  SUBCASE("many waiters on one key, and a multi-key WAIT completed piece by piece") {
    std::vector<std::future<void>> waiters;
    for (int i = 0; i < 8; ++i) {
      waiters.push_back(std::async(std::launch::async, [&server] {
        store::KvClient c = client_of(server);
        c.wait({"a", "b", "c"}, kLong);
      }));
    }
    setter.set("c", "3");
    setter.set("a", "1");
    setter.set("b", "2");
    for (auto& w : waiters) {
      REQUIRE(w.wait_for(kLong) == std::future_status::ready);
      CHECK_NOTHROW(w.get());
    }
  }
}

TEST_CASE("kv store: WAIT and get time out with the missing keys named") {
  store::KvServer server("127.0.0.1", 0, secret());
  store::KvClient c = client_of(server);
  c.set("there", "1");
  CHECK_THROWS_WITH_AS(c.wait({"there", "absent"}, kShort), doctest::Contains("missing: absent"),
                       hvd::TimeoutError);
  CHECK_THROWS_WITH_AS(c.get("nope", kShort), doctest::Contains("'nope'"), hvd::TimeoutError);
  CHECK_THROWS_AS(c.wait({"absent"}, milliseconds(0)), hvd::TimeoutError);
  c.wait({"there"}, milliseconds(0));  // present keys need no time
  c.ping();                            // timeouts do not break the connection

  SUBCASE("a key deleted while the WAIT is parked no longer counts") {
    auto waiter = std::async(std::launch::async, [&server] {
      store::KvClient w = client_of(server);
      w.wait({"x", "y"}, milliseconds(300));
    });
    c.set("x", "1");
    c.del("x");
    c.set("y", "1");
    REQUIRE(waiter.wait_for(kLong) == std::future_status::ready);
    CHECK_THROWS_WITH_AS(waiter.get(), doctest::Contains("missing: x"), hvd::TimeoutError);
  }
}

TEST_CASE("kv store: 32 concurrent clients get exact totals") {
  store::KvServer server("127.0.0.1", 0, secret());
  constexpr int kThreads = 32;
  constexpr int kOps = 200;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&server, &failures, t] {
      try {
        store::KvClient c = client_of(server);
        for (int i = 0; i < kOps; ++i) {
          c.add("total", 1);
          c.add("sum", t);
          c.set("t" + std::to_string(t) + "/" + std::to_string(i), std::to_string(i * t));
        }
        c.wait({"t0/" + std::to_string(kOps - 1)}, kLong);
      } catch (...) {
        ++failures;
      }
    });
  }
  for (auto& th : threads) th.join();
  CHECK(failures == 0);
  store::KvClient c = client_of(server);
  CHECK(c.add("total", 0) == kThreads * kOps);
  CHECK(c.add("sum", 0) == kOps * (kThreads * (kThreads - 1) / 2));
  for (int t = 0; t < kThreads; ++t) {
    for (int i = 0; i < kOps; i += 37) {
      CHECK(c.try_get("t" + std::to_string(t) + "/" + std::to_string(i)) ==
            std::optional<std::string>(std::to_string(i * t)));
    }
  }
}

TEST_CASE("kv store: a client that vanishes does not disturb the others") {
  store::KvServer server("127.0.0.1", 0, secret());
  store::KvClient good = client_of(server);

  SUBCASE("disconnect with a parked WAIT") {
    net::Fd raw = raw_connection(server);
    send_frame(raw, {store::Op::kWait, {"never-yet"}, "", 60000});
    good.ping();  // gives the server time to park the WAIT; the test holds either way
    raw.reset();
    good.ping();
    good.set("never-yet", "now");  // would reply to the dropped connection if it were kept
  }
  SUBCASE("disconnect after half a header") {
    net::Fd raw = raw_connection(server);
    net::write_all(raw.get(), "\0\0", 2);
    raw.reset();
  }
  SUBCASE("disconnect in the middle of a body") {
    net::Fd raw = raw_connection(server);
    const std::string frame = store::encode_request({store::Op::kSet, {"half"}, "value", 0});
    net::write_all(raw.get(), frame.data(), frame.size() - 3);
    raw.reset();
    good.ping();
    CHECK_FALSE(good.try_get("half").has_value());
  }
  SUBCASE("a malformed frame closes that connection only") {
    net::Fd raw = raw_connection(server);
    net::write_all(raw.get(), "GET /store HTTP/1.1\r\n\r\n", 23);
    char c;
    bool closed = false;
    try {
      closed = !net::read_exact(raw.get(), &c, 1, std::chrono::steady_clock::now() + kLong);
    } catch (const hvd::BootstrapError&) {
      closed = true;  // a reset instead of a FIN is just as closed
    }
    CHECK(closed);
  }
  good.set("still", "serving");
  CHECK(good.get("still", kLong) == "serving");
  store::KvClient fresh = client_of(server);
  CHECK(fresh.try_get("still") == std::optional<std::string>("serving"));
}

TEST_CASE("kv store: a stopped server makes waiting clients throw instead of hanging") {
  auto server = std::make_unique<store::KvServer>("127.0.0.1", 0, secret());
  store::KvClient c = client_of(*server);
  c.ping();
  auto waiter = std::async(std::launch::async, [&c] { c.wait({"never"}, kLong); });
  std::this_thread::sleep_for(milliseconds(50));
  server->stop();
  server->stop();  // idempotent
  REQUIRE(waiter.wait_for(kLong) == std::future_status::ready);
  CHECK_THROWS_AS(waiter.get(), hvd::BootstrapError);
  CHECK_THROWS_AS(c.ping(), hvd::BootstrapError);  // the connection is known broken
  server.reset();
}

namespace {

// A server that authenticates one client and then reads its requests without ever answering,
// until the client closes. The future says whether the client proved the secret.
std::future<bool> serve_mute(const net::Fd& listener) {
  return std::async(std::launch::async, [&listener] {
    net::Fd conn(accept(listener.get(), nullptr, nullptr));
    const bool ok = hvd::auth::prove_as_acceptor(conn.get(), secret(), store::kAuthPurpose,
                                                 std::chrono::steady_clock::now() + kLong);
    char byte;
    try {
      while (ok &&
             net::read_exact(conn.get(), &byte, 1, std::chrono::steady_clock::now() + kLong)) {
      }
    } catch (const hvd::Error&) {
      // reset by the client: just as closed
    }
    return ok;
  });
}

}  // namespace

TEST_CASE("kv store: a server that never answers gives TimeoutError after the margin") {
  const net::Fd listener = net::listen_tcp("127.0.0.1", 0);
  auto mute = serve_mute(listener);
  {
    store::KvClient c("127.0.0.1", net::local_port(listener.get()), secret(), kLong, kShort);
    CHECK_THROWS_AS(finishes([&c] { c.ping(); }), hvd::TimeoutError);
    CHECK_THROWS_AS(c.ping(), hvd::BootstrapError);
  }  // closing the client ends the mute server's read
  CHECK(finishes([&mute] { return mute.get(); }));
}

TEST_CASE("kv store: connecting with no server is a clean error after the timeout") {
  const uint16_t port = net::pick_free_port("127.0.0.1");
  CHECK_THROWS_AS(store::KvClient("127.0.0.1", port, secret(), kShort), hvd::TimeoutError);
}

TEST_CASE("kv store: connect_from_env") {
  store::KvServer server("127.0.0.1", 0, secret());
  std::map<std::string, std::string> env = {{hvd::env::kStoreAddr, "127.0.0.1"},
                                            {hvd::env::kStorePort, std::to_string(server.port())},
                                            {hvd::env::kRunSecret, secret().hex()}};
  store::KvClient c = store::connect_from_env(env, kLong);
  c.ping();
  CHECK(c.endpoint() == "127.0.0.1:" + std::to_string(server.port()));

  {
    auto no_secret = env;
    no_secret.erase(hvd::env::kRunSecret);
    CHECK_THROWS_WITH_AS(store::connect_from_env(no_secret, kLong),
                         doctest::Contains("HVD_RUN_SECRET is not set"), hvd::BootstrapError);
  }
  env[hvd::env::kStorePort] = "http";
  CHECK_THROWS_WITH_AS(store::connect_from_env(env, kLong), doctest::Contains("HVD_STORE_PORT"),
                       hvd::BootstrapError);
  env.erase(hvd::env::kStoreAddr);
  CHECK_THROWS_WITH_AS(store::connect_from_env(env, kLong),
                       doctest::Contains("HVD_STORE_ADDR is not set"), hvd::BootstrapError);
}

TEST_CASE("kv store: connect_from_env's timeout also bounds the wait for a reply") {
  // HVD_BOOTSTRAP_TIMEOUT=1 must not turn into 1 s plus a fixed 30 s for a store that stops
  // answering once connected.
  const net::Fd listener = net::listen_tcp("127.0.0.1", 0);
  auto mute = serve_mute(listener);
  const std::map<std::string, std::string> env = {
      {hvd::env::kStoreAddr, "127.0.0.1"},
      {hvd::env::kStorePort, std::to_string(net::local_port(listener.get()))},
      {hvd::env::kRunSecret, secret().hex()}};
  {
    // Long enough to connect and authenticate on a loaded machine, far below 30 s.
    store::KvClient c = store::connect_from_env(env, milliseconds(2000));
    CHECK_THROWS_WITH_AS(finishes([&c] { c.ping(); }), doctest::Contains("no reply within 2000 ms"),
                         hvd::TimeoutError);
  }
  CHECK(finishes([&mute] { return mute.get(); }));
}
