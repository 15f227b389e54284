// SPDX-License-Identifier: Apache-2.0
#include "net/socket.h"

#include <doctest/doctest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>

#include "hvd/error.h"

namespace net = hvd::net;
using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

namespace {

// A connected pair through a real listening socket on the loopback interface.
struct Pair {
  net::Fd client;
  net::Fd server;
};

Pair connected_pair() {
  const net::Fd listener = net::listen_tcp("127.0.0.1", 0);
  Pair p;
  p.client = net::connect_tcp("127.0.0.1", net::local_port(listener.get()), milliseconds(5000));
  p.server = net::Fd(accept(listener.get(), nullptr, nullptr));
  REQUIRE(p.server.valid());
  return p;
}

Clock::time_point in(milliseconds d) { return Clock::now() + d; }

}  // namespace

TEST_CASE("Fd: owns and moves and releases a descriptor") {
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  net::Fd a(fds[0]);
  net::Fd w(fds[1]);
  net::Fd b(std::move(a));
  CHECK_FALSE(a.valid());
  CHECK(b.get() == fds[0]);
  a = std::move(b);
  CHECK(a.get() == fds[0]);
  const int raw = a.release();
  CHECK_FALSE(a.valid());
  CHECK(close(raw) == 0);  // still open: release() did not close it
  w.reset();
  CHECK_FALSE(w.valid());
}

TEST_CASE("listen_tcp: port 0 binds a free port and a busy port is a BootstrapError") {
  const net::Fd listener = net::listen_tcp("127.0.0.1", 0);
  const uint16_t port = net::local_port(listener.get());
  CHECK(port != 0);
  CHECK_THROWS_AS(net::listen_tcp("127.0.0.1", port), hvd::BootstrapError);
  CHECK(net::pick_free_port("127.0.0.1") != 0);
}

TEST_CASE("write_all and read_exact: round trip and EOF and deadlines") {
  Pair p = connected_pair();
  const std::string msg = "hello, rank";
  net::write_all(p.client.get(), msg.data(), msg.size());
  std::string got(msg.size(), '\0');
  REQUIRE(net::read_exact(p.server.get(), got.data(), got.size(), in(milliseconds(5000))));
  CHECK(got == msg);

  SUBCASE("nothing arrives: TimeoutError") {
    char c;
    CHECK_THROWS_AS(net::read_exact(p.server.get(), &c, 1, in(milliseconds(100))),
                    hvd::TimeoutError);
  }
  SUBCASE("orderly EOF between messages returns false") {
    p.client.reset();
    char c;
    CHECK_FALSE(net::read_exact(p.server.get(), &c, 1, in(milliseconds(5000))));
  }
  SUBCASE("EOF in the middle of a message is a BootstrapError") {
    net::write_all(p.client.get(), "ab", 2);
    p.client.reset();
    char buf[4];
    CHECK_THROWS_AS(net::read_exact(p.server.get(), buf, sizeof(buf), in(milliseconds(5000))),
                    hvd::BootstrapError);
  }
  SUBCASE("writing to a closed peer is a BootstrapError, not SIGPIPE") {
    p.server.reset();
    const std::string big(1 << 20, 'x');
    // The first write may still be buffered; the reset arrives before later ones.
    const auto flood = [&] {
      for (int i = 0; i < 64; ++i) net::write_all(p.client.get(), big.data(), big.size());
    };
    CHECK_THROWS_AS(flood(), hvd::BootstrapError);
  }
  SUBCASE("a peer that stops reading: TimeoutError at the write deadline") {
    const std::string big(1 << 20, 'x');
    const auto flood = [&] {
      for (int i = 0; i < 1024; ++i) {
        net::write_all(p.client.get(), big.data(), big.size(), in(milliseconds(200)));
      }
    };
    CHECK_THROWS_AS(flood(), hvd::TimeoutError);
  }
}

TEST_CASE("connect_tcp: no server is a clean TimeoutError naming host:port") {
  const uint16_t port = net::pick_free_port("127.0.0.1");
  try {
    net::connect_tcp("127.0.0.1", port, milliseconds(200));
    FAIL("connected to a port with no server");
  } catch (const hvd::TimeoutError& e) {
    const std::string what = e.what();
    CHECK(what.find("127.0.0.1:" + std::to_string(port)) != std::string::npos);
    CHECK(what.find("refused") != std::string::npos);
  }
}

TEST_CASE("connect_tcp: retries until a late server listens") {
  const uint16_t port = net::pick_free_port("127.0.0.1");
  std::thread late([port] {
    std::this_thread::sleep_for(milliseconds(150));
    const net::Fd listener = net::listen_tcp("127.0.0.1", port);
    net::Fd conn(accept(listener.get(), nullptr, nullptr));
    char c = 0;
    net::read_exact(conn.get(), &c, 1, in(milliseconds(20000)));
  });
  // Generous bound: only liveness matters, not how quickly the retry lands.
  net::Fd fd = net::connect_tcp("127.0.0.1", port, milliseconds(20000));
  CHECK(fd.valid());
  net::write_all(fd.get(), "x", 1);
  late.join();
}
