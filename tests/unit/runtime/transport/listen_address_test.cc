// SPDX-License-Identifier: Apache-2.0
// Where the TCP ring listens when the store knows no address (PMIx, MPI bootstraps): the local
// end of the route to another host of the job, never every interface (0.0.0.0). The resolver and
// the route are injected, so that hosts and networks this machine does not have can be tested.
#include <doctest/doctest.h>
#include <netdb.h>
#include <netinet/in.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bootstrap/world_info.h"
#include "fakes/kv_client_store.h"
#include "fakes/thread_world.h"
#include "hvd/error.h"
#include "store/kv_server.h"
#include "transport/tcp/listen_address.h"
#include "transport/tcp/tcp_transport.h"
#include "transport/transport_factory.h"

namespace ring = hvd::backends::ring;

namespace {

// Names resolve to the addresses given; each address is routed from the local address given.
struct FakeNet {
  std::map<std::string, std::vector<std::string>> names;
  std::map<std::string, std::string> routes;
  int resolved = 0;
  ring::AddressLookup lookup() {
    return {[this](const std::string& host) {
              ++resolved;
              const auto it = names.find(host);
              return it == names.end() ? std::vector<std::string>{} : it->second;
            },
            [this](const std::string& address) {
              const auto it = routes.find(address);
              return it == routes.end() ? std::string() : it->second;
            }};
  }
};

bool resolves_to_loopback(const std::string& name) {
  addrinfo hints{};
  hints.ai_family = AF_INET;
  addrinfo* result = nullptr;
  if (getaddrinfo(name.c_str(), nullptr, &hints, &result) != 0) return false;
  const auto* in = reinterpret_cast<const sockaddr_in*>(result->ai_addr);
  const bool loopback = (ntohl(in->sin_addr.s_addr) >> 24) == 127;
  freeaddrinfo(result);
  return loopback;
}

}  // namespace

TEST_CASE("listen address: the local end of the route to another host of the job") {
  FakeNet net;
  net.names["node2"] = {"10.0.0.2"};
  net.routes["10.0.0.2"] = "10.0.0.1";
  CHECK(ring::route_listen_address("node1", {"node1", "node1", "node2", "node2"}, net.lookup()) ==
        "10.0.0.1");
  SUBCASE("a host that does not resolve, or resolves to this host, is passed over") {
    net.names["node3"] = {"127.0.1.1"};  // a shared /etc/hosts line naming this host
    net.routes["127.0.1.1"] = "127.0.0.1";
    CHECK(ring::route_listen_address("node1", {"node1", "ghost", "node3", "node2"}, net.lookup()) ==
          "10.0.0.1");
  }
  SUBCASE("IPv6 works the same") {
    net.names["node4"] = {"fd00::4"};
    net.routes["fd00::4"] = "fd00::1";
    CHECK(ring::route_listen_address("node1", {"node1", "node4"}, net.lookup()) == "fd00::1");
  }
}

TEST_CASE("listen address: no route is an error naming the hosts and HVD_RING_ADDRESS") {
  FakeNet net;
  net.names["node3"] = {"127.0.1.1"};
  net.routes["127.0.1.1"] = "127.0.0.1";
  net.names["node4"] = {"10.9.9.9"};  // resolves, no route
  try {
    ring::route_listen_address("node1", {"node1", "ghost", "node3", "node4"}, net.lookup());
    FAIL("no error");
  } catch (const hvd::BootstrapError& e) {
    const std::string text = e.what();
    CHECK(text.find("ghost (does not resolve)") != std::string::npos);
    CHECK(text.find("node3 (resolves to 127.0.1.1, this host)") != std::string::npos);
    CHECK(text.find("node4 (resolves to 10.9.9.9 with no route)") != std::string::npos);
    CHECK(text.find("HVD_RING_ADDRESS") != std::string::npos);
  }
  CHECK_THROWS_AS(ring::route_listen_address("node1", {"node1", "node1"}, net.lookup()),
                  hvd::ConfigError);
}

TEST_CASE("listen address: a job of many hosts resolves only a few of them") {
  FakeNet net;
  std::vector<std::string> hosts = {"node0"};
  for (int i = 1; i < 1000; ++i) hosts.push_back("node" + std::to_string(i));
  CHECK_THROWS_AS(ring::route_listen_address("node0", hosts, net.lookup()), hvd::BootstrapError);
  CHECK(net.resolved == 8);
}

TEST_CASE("listen address: transport_setup carries HVD_RING_ADDRESS and the world's hosts") {
  hvd::bootstrap::WorldInfo world;
  world.cross_size = 2;
  world.hostname = "node1";
  world.hostnames = {"node1", "node2"};
  const ring::TransportSetup setup = ring::transport_setup({{"HVD_RING_ADDRESS", "10.1.2.3"}},
                                                           world, std::chrono::milliseconds(3000));
  CHECK_FALSE(setup.one_host);
  CHECK(setup.timeout == std::chrono::milliseconds(3000));
  CHECK(setup.address == "10.1.2.3");
  CHECK(setup.self_host == "node1");
  CHECK(setup.hosts == world.hostnames);
  CHECK(
      ring::transport_setup({{"HVD_RING_ADDRESS", "fd00::1"}}, world, std::chrono::milliseconds(1))
          .address == "fd00::1");
  CHECK_THROWS_WITH_AS(ring::transport_setup({{"HVD_RING_ADDRESS", "10.1.2.3:80"}}, world,
                                             std::chrono::milliseconds(1)),
                       doctest::Contains("HVD_RING_ADDRESS='10.1.2.3:80'"), hvd::ConfigError);
}

TEST_CASE("listen address: a host name that resolves to loopback is refused, not 0.0.0.0") {
  char name[256] = {};
  REQUIRE(gethostname(name, sizeof(name) - 1) == 0);
  if (!resolves_to_loopback(name)) {
    MESSAGE("this host's name does not resolve to loopback here; nothing to check");
    return;
  }
  hvd::store::KvServer server("127.0.0.1", 0, hvd::test::test_secret());
  hvd::test::KvClientStore store(server.port(), 2);
  ring::TcpOptions o;
  o.advertise_host = name;
  o.setup_timeout = std::chrono::milliseconds(20000);
  CHECK_THROWS_WITH_AS(ring::TcpTransport(store, 0, 2, hvd::test::test_secret(), o),
                       doctest::Contains("set HVD_RING_ADDRESS"), hvd::BootstrapError);
}

TEST_CASE("listen address: make_transport listens where HVD_RING_ADDRESS says") {
  hvd::store::KvServer server("127.0.0.1", 0, hvd::test::test_secret());
  ring::TransportSetup setup;
  setup.timeout = std::chrono::milliseconds(20000);
  setup.address = "127.0.0.3";
  setup.self_host = "node1";
  setup.hosts = {"node1", "ghost"};  // not needed: the override wins
  std::string published;
  hvd::test::spawn(2, [&](int rank) {
    hvd::test::KvClientStore store(server.port(), 2);
    auto t = ring::make_transport("tcp", store, rank, 2, "addr", hvd::test::test_secret(), setup);
    if (rank == 0) published = store.get("addr/tcp/0", std::chrono::milliseconds(1000));
  });
  CHECK(published.rfind("127.0.0.3:", 0) == 0);
}
