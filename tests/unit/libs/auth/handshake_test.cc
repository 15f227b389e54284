// SPDX-License-Identifier: Apache-2.0
#include "auth/handshake.h"

#include <doctest/doctest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <thread>

#include "hvd/env_keys.h"
#include "hvd/error.h"
#include "net/socket.h"

using hvd::auth::Acceptor;
using hvd::auth::Initiator;
using hvd::auth::RunSecret;

namespace {

std::pair<hvd::net::Fd, hvd::net::Fd> socket_pair() {
  int fds[2];
  REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) == 0);
  return {hvd::net::Fd(fds[0]), hvd::net::Fd(fds[1])};
}

auto soon() { return std::chrono::steady_clock::now() + std::chrono::seconds(5); }

}  // namespace

TEST_CASE("run secret: 256 fresh bits that survive a hex round trip") {
  const RunSecret a = RunSecret::generate();
  const RunSecret b = RunSecret::generate();
  CHECK(a.hex().size() == 64);
  CHECK(a.hex() != b.hex());
  CHECK(RunSecret::from_hex(a.hex(), "X").bytes() == a.bytes());
}

TEST_CASE("run secret: malformed or missing values are BootstrapErrors that do not echo it") {
  const std::string bad(64, 'g');
  try {
    RunSecret::from_hex(bad, "HVD_RUN_SECRET");
    FAIL("accepted");
  } catch (const hvd::BootstrapError& e) {
    CHECK(std::string(e.what()).find(bad) == std::string::npos);
  }
  CHECK_THROWS_AS(RunSecret::from_hex("abcd", "X"), hvd::BootstrapError);
  CHECK_THROWS_AS(hvd::auth::secret_from_env({}), hvd::BootstrapError);
  const RunSecret s = RunSecret::generate();
  CHECK(hvd::auth::secret_from_env({{hvd::env::kRunSecret, s.hex()}}).bytes() == s.bytes());
}

TEST_CASE("handshake: both sides with the secret prove it to each other") {
  const RunSecret k = RunSecret::generate();
  Acceptor acc(k, "store");
  Initiator ini(k, "store");
  const std::string response = ini.respond(acc.challenge());
  REQUIRE(acc.check_response(response));
  CHECK_NOTHROW(ini.check_confirmation(acc.confirmation()));
}

TEST_CASE("handshake: a wrong secret, another purpose, a replay or a reflection all fail") {
  const RunSecret k = RunSecret::generate();
  const RunSecret other = RunSecret::generate();
  SUBCASE("initiator without the secret") {
    Acceptor acc(k, "store");
    Initiator ini(other, "store");
    CHECK_FALSE(acc.check_response(ini.respond(acc.challenge())));
  }
  SUBCASE("a proof made for the ring is refused by the store") {
    Acceptor acc(k, "store");
    Initiator ini(k, "ring");
    CHECK_FALSE(acc.check_response(ini.respond(acc.challenge())));
  }
  SUBCASE("a recorded response does not open a second connection") {
    Acceptor first(k, "store");
    Initiator ini(k, "store");
    const std::string recorded = ini.respond(first.challenge());
    REQUIRE(first.check_response(recorded));
    Acceptor second(k, "store");
    CHECK_FALSE(second.check_response(recorded));
  }
  SUBCASE("an impostor acceptor cannot confirm") {
    Acceptor fake(other, "store");
    Initiator ini(k, "store");
    const std::string response = ini.respond(fake.challenge());
    CHECK_FALSE(fake.check_response(response));
    CHECK_THROWS_AS(ini.check_confirmation(std::string(hvd::auth::kConfirmBytes, 'x')),
                    hvd::BootstrapError);
    // Reflecting the initiator's own MAC back is no confirmation either.
    CHECK_THROWS_AS(ini.check_confirmation(response.substr(hvd::auth::kNonceBytes)),
                    hvd::BootstrapError);
  }
  SUBCASE("garbage of any length") {
    Acceptor acc(k, "store");
    CHECK_FALSE(acc.check_response(""));
    CHECK_FALSE(acc.check_response(std::string(hvd::auth::kResponseBytes, '\0')));
    Initiator ini(k, "store");
    CHECK_THROWS_AS(ini.respond("HTTP/1.1 200 OK\r\n"), hvd::BootstrapError);
  }
}

TEST_CASE("handshake over a socket: the blocking helpers agree, and a liar is turned away") {
  const RunSecret k = RunSecret::generate();
  SUBCASE("same secret") {
    auto [a, b] = socket_pair();
    bool accepted = false;
    std::thread t([&, fd = a.get()] { accepted = hvd::auth::prove_as_acceptor(fd, k, "ring", soon()); });
    CHECK_NOTHROW(hvd::auth::prove_as_initiator(b.get(), k, "ring", soon()));
    t.join();
    CHECK(accepted);
  }
  SUBCASE("different secret: the acceptor says no and the initiator learns it") {
    const RunSecret other = RunSecret::generate();
    auto [a, b] = socket_pair();
    bool accepted = true;
    std::thread t([&, fd = a.get()] {
      accepted = hvd::auth::prove_as_acceptor(fd, k, "ring", soon());
      ::shutdown(fd, SHUT_RDWR);  // what a real acceptor does: close without an answer
    });
    CHECK_THROWS_AS(hvd::auth::prove_as_initiator(b.get(), other, "ring", soon()),
                    hvd::BootstrapError);
    t.join();
    CHECK_FALSE(accepted);
  }
  SUBCASE("a silent peer times out on the acceptor without an exception") {
    auto [a, b] = socket_pair();
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(50);
    CHECK_FALSE(hvd::auth::prove_as_acceptor(a.get(), k, "ring", deadline));
  }
}
