// SPDX-License-Identifier: Apache-2.0
// The store's front door: the run-secret proof every connection must pass before its first
// command, and the limits that keep other users of the cluster from exhausting the server.
// Nothing here asserts how long anything took; waits are for explicit conditions (a closed
// socket, a counter in stats()) under generous liveness bounds.
#include <doctest/doctest.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include <chrono>
#include <future>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "auth/handshake.h"
#include "auth/run_secret.h"
#include "hvd/error.h"
#include "kv_test_peer.h"
#include "net/socket.h"
#include "store/kv_client.h"
#include "store/kv_protocol.h"
#include "store/kv_server.h"

namespace net = hvd::net;
namespace store = hvd::store;
namespace auth = hvd::auth;
using std::chrono::milliseconds;
using namespace hvd::test::kv;  // NOLINT: the shared helpers, by their short names
using Clock = std::chrono::steady_clock;

namespace {

// Reads the 40-byte challenge a fresh connection gets, as any peer would.
net::Fd unauthenticated(const store::KvServer& server) {
  net::Fd fd = net::connect_tcp("127.0.0.1", server.port(), kLong);
  std::string challenge(auth::kChallengeBytes, '\0');
  REQUIRE(net::read_exact(fd.get(), challenge.data(), challenge.size(), Clock::now() + kLong));
  CHECK(challenge.substr(0, auth::kChallengeMagic.size()) == auth::kChallengeMagic);
  return fd;
}

// True when the server closed `fd` without sending one more byte.
bool closed_without_answer(const net::Fd& fd) {
  char byte;
  try {
    return !net::read_exact(fd.get(), &byte, 1, Clock::now() + kLong);
  } catch (const hvd::BootstrapError&) {
    return true;  // a reset is as closed as a FIN, and carries no answer either
  }
}

template <typename Pred>
bool eventually(Pred pred) {
  const auto deadline = Clock::now() + kLong;
  while (!pred()) {
    if (Clock::now() > deadline) return false;
    std::this_thread::sleep_for(milliseconds(5));  // polling a condition, not a delay
  }
  return true;
}

}  // namespace

TEST_CASE("kv store auth: commands before the proof get no answer and close the connection") {
  store::StoreLimits limits;
  limits.auth_timeout = milliseconds(300);  // the short frames below wait for it
  store::KvServer server("127.0.0.1", 0, secret(), limits);
  store::KvClient good = client_of(server);
  good.set("victim", "original");

  SUBCASE("SET") {
    const net::Fd fd = unauthenticated(server);
    send_frame(fd, {store::Op::kSet, {"victim"}, std::string(100, 'x'), 0});
    CHECK(closed_without_answer(fd));
  }
  SUBCASE("GET") {
    const net::Fd fd = unauthenticated(server);
    send_frame(fd, {store::Op::kGet, {"victim"}, "", 0});
    CHECK(closed_without_answer(fd));  // a short frame: closed by the authentication timeout
  }
  SUBCASE("DELETE") {
    const net::Fd fd = unauthenticated(server);
    send_frame(fd, {store::Op::kDelete, {"victim"}, "", 0});
    CHECK(closed_without_answer(fd));
  }
  SUBCASE("a response of the right size with the wrong MAC") {
    const net::Fd fd = unauthenticated(server);
    const std::string junk(auth::kResponseBytes, 'j');
    net::write_all(fd.get(), junk.data(), junk.size());
    CHECK(closed_without_answer(fd));
  }
  CHECK(good.try_get("victim") == std::optional<std::string>("original"));
  CHECK(server.stats().rejected >= 1);
}

TEST_CASE("kv store auth: a client with another run's secret gets BootstrapError") {
  store::KvServer server("127.0.0.1", 0, secret());
  const auth::RunSecret other = auth::RunSecret::generate();
  CHECK_THROWS_AS(store::KvClient("127.0.0.1", server.port(), other, kLong), hvd::BootstrapError);
  client_of(server).ping();  // the server goes on serving

  SUBCASE("and a client refuses a server with another secret") {
    store::KvServer impostor("127.0.0.1", 0, other);
    CHECK_THROWS_AS(client_of(impostor), hvd::BootstrapError);
  }
}

TEST_CASE("kv store limits: half-sent frames do not make the server buffer them") {
  store::StoreLimits limits;
  limits.max_frame_bytes = size_t{64} << 10;
  store::KvServer server("127.0.0.1", 0, secret(), limits);
  const std::string big(size_t{1} << 20, 'b');
  std::string header(store::kHeaderBytes, '\0');
  header[1] = 0x3f;  // announces about 4 MB, as the frames that grew hvdrun to 367 MB did

  SUBCASE("unauthenticated: only the response's bytes are read, then the connection closes") {
    std::vector<net::Fd> idle;
    for (int i = 0; i < 4; ++i) {
      idle.push_back(unauthenticated(server));
      net::write_all(idle.back().get(), header.data(), header.size());
      ::send(idle.back().get(), big.data(), big.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
    }
    for (const net::Fd& fd : idle) CHECK(closed_without_answer(fd));
    CHECK(eventually([&] { return server.stats().rejected >= 4; }));
    CHECK(server.stats().peak_connection_buffer < 1024);
  }
  SUBCASE("authenticated: a frame over the server's limit closes that connection") {
    net::Fd fd = net::connect_tcp("127.0.0.1", server.port(), kLong);
    auth::prove_as_initiator(fd.get(), secret(), store::kAuthPurpose, Clock::now() + kLong);
    net::write_all(fd.get(), header.data(), header.size());
    ::send(fd.get(), big.data(), big.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
    CHECK(closed_without_answer(fd));
    CHECK(server.stats().peak_connection_buffer < 4 * limits.max_frame_bytes);
  }
  client_of(server).ping();
}

TEST_CASE("kv store limits: a client's PING succeeds while 1,100 junk connections are open") {
  // The process's soft limit is what ran out in the report: the server kept accepting junk
  // until accept() failed, and the real client waited in the backlog until its PING timed out.
  rlimit nofile{};
  REQUIRE(getrlimit(RLIMIT_NOFILE, &nofile) == 0);
  constexpr rlim_t kSoft = 2048;
  if (nofile.rlim_max != RLIM_INFINITY && nofile.rlim_max < kSoft) return;  // cannot set it up
  const rlimit saved = nofile;
  nofile.rlim_cur = kSoft;
  REQUIRE(setrlimit(RLIMIT_NOFILE, &nofile) == 0);
  {
    store::KvServer server("127.0.0.1", 0, secret(), store::StoreLimits::for_ranks(8));
    std::vector<net::Fd> junk;
    for (int i = 0; i < 1100; ++i) {
      junk.push_back(net::connect_tcp("127.0.0.1", server.port(), kLong));
    }
    store::KvClient c = client_of(server);
    c.ping();
    c.set("k", "v");
    CHECK(c.try_get("k") == std::optional<std::string>("v"));
    CHECK(server.stats().evicted > 0);
  }
  setrlimit(RLIMIT_NOFILE, &saved);
}

// Two Python threads that opened and held connections as fast as they could made 6 of 8 4-rank
// jobs fail: each new connection evicted the oldest unauthenticated one, and a rank that had
// not been scheduled to answer its challenge within a millisecond or so was that one.
TEST_CASE("kv store limits: a flood does not evict a client that has not answered yet") {
  store::StoreLimits limits;
  limits.max_unauthenticated = 4;
  limits.eviction_grace = kLong;  // the rank below is slow, however slow the machine is
  store::KvServer server("127.0.0.1", 0, secret(), limits);
  // A rank: accepted and challenged, not yet scheduled to answer.
  const net::Fd rank = net::connect_tcp("127.0.0.1", server.port(), kLong);
  std::string challenge(auth::kChallengeBytes, '\0');
  REQUIRE(net::read_exact(rank.get(), challenge.data(), challenge.size(), Clock::now() + kLong));
  std::vector<net::Fd> flood;
  for (int i = 0; i < 12; ++i) flood.push_back(net::connect_tcp("127.0.0.1", server.port(), kLong));
  // The other 9 are taken off the backlog and closed before their challenge (the old server
  // evicted the oldest for each of them, the rank first).
  REQUIRE(eventually([&] { return server.stats().turned_away == 9; }));
  CHECK(server.stats().evicted == 0);
  for (size_t i = limits.max_unauthenticated - 1; i < flood.size(); ++i) {
    CHECK(closed_without_answer(flood[i]));
  }
  auth::Initiator me(secret(), store::kAuthPurpose);
  const std::string response = me.respond(challenge);
  net::write_all(rank.get(), response.data(), response.size());
  std::string confirm(auth::kConfirmBytes, '\0');
  REQUIRE(net::read_exact(rank.get(), confirm.data(), confirm.size(), Clock::now() + kLong));
  CHECK_NOTHROW(me.check_confirmation(confirm));
}

TEST_CASE("kv store limits: a client turned away by a full server connects again") {
  store::StoreLimits limits;
  limits.max_unauthenticated = 1;
  limits.eviction_grace = kLong;
  store::KvServer server("127.0.0.1", 0, secret(), limits);
  std::optional<net::Fd> squatter = unauthenticated(server);  // holds the only slot
  auto rank = std::async(std::launch::async, [&] {
    store::KvClient c = client_of(server);
    c.set("k", "v");
  });
  REQUIRE(eventually([&] { return server.stats().turned_away >= 2; }));
  squatter.reset();  // the slot frees: the rank's next try gets it
  CHECK_NOTHROW(rank.get());
  CHECK(client_of(server).try_get("k") == std::optional<std::string>("v"));
}

TEST_CASE("kv store limits: reaching the connection cap logs one line, once") {
  std::mutex mu;
  std::vector<std::string> lines;
  store::StoreLimits limits;
  limits.max_connections = 3;
  store::KvServer server("127.0.0.1", 0, secret(), limits, [&](const std::string& line) {
    const std::lock_guard<std::mutex> lock(mu);
    lines.push_back(line);
  });
  std::vector<store::KvClient> clients;
  for (int i = 0; i < 3; ++i) clients.push_back(client_of(server));
  std::vector<net::Fd> waiting;  // in the backlog: the server is at its cap
  for (int i = 0; i < 3; ++i) {
    waiting.push_back(net::connect_tcp("127.0.0.1", server.port(), kLong));
  }
  CHECK(eventually([&] {
    const std::lock_guard<std::mutex> lock(mu);
    return !lines.empty();
  }));
  for (int round = 0; round < 5; ++round) {
    for (store::KvClient& c : clients) c.ping();  // the server keeps cycling at the cap
  }
  const std::lock_guard<std::mutex> lock(mu);
  REQUIRE(lines.size() == 1);
  CHECK(lines[0].find("3 connections open") != std::string::npos);
}

TEST_CASE("kv store limits: a SET past the total is refused and the store keeps serving") {
  store::StoreLimits limits;
  limits.max_stored_bytes = 1000;
  store::KvServer server("127.0.0.1", 0, secret(), limits);
  store::KvClient c = client_of(server);
  c.set("small", std::string(500, 's'));
  CHECK_THROWS_WITH_AS(c.set("big", std::string(600, 'b')), doctest::Contains("store is full"),
                       hvd::BootstrapError);
  CHECK_FALSE(c.try_get("big").has_value());
  c.set("small", std::string(900, 's'));  // replacing counts the difference only
  CHECK(c.del("small"));
  c.set("big", std::string(600, 'b'));  // deleting gave the bytes back
  CHECK(c.add("n", 1) == 1);
  // stats() is published after the round that sent the reply: wait for it, then compare.
  CHECK(eventually([&] { return server.stats().stored_bytes == 3 + 600 + 1 + 1; }));
}
