// SPDX-License-Identifier: Apache-2.0
// The TCP transport's authenticated setup: connections that are not the expected peer (another
// user's forged hello, garbage, silence, the wrong secret, the right secret for another scope)
// are dropped while the real ranks connect; listeners bind to the advertised address only.
#include <arpa/inet.h>
#include <doctest/doctest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <functional>
#include <future>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "auth/handshake.h"
#include "backends/ring/collectives.h"
#include "bootstrap/kv_store.h"
#include "fakes/kv_client_store.h"
#include "hvd/error.h"
#include "net/socket.h"
#include "store/kv_client.h"
#include "transport/tcp/tcp_links.h"
#include "unit/runtime/ring/ring_world.h"

using hvd::BufferView;
using hvd::DataType;
using hvd::ReduceOp;
using std::chrono::milliseconds;
namespace test = hvd::test;
namespace ring = hvd::backends::ring;
namespace net = hvd::net;

namespace {

constexpr int kRanks = 3;
constexpr int kTarget = kRanks - 1;  // accepts from every lower rank

// The hello of the unauthenticated protocol: what an attacker who read the code would send.
std::string forged_hello(uint32_t rank, uint32_t size, uint32_t scope_hash) {
  const uint32_t wire[4] = {htonl(0x48564454), htonl(rank), htonl(size), htonl(scope_hash)};
  return std::string(reinterpret_cast<const char*>(wire), sizeof(wire));
}

// Rank 1 of 2, accepting rank 0 on its listener (scope hash 7, as forged_hello(0, 2, 7)).
ring::LinkPlan rank1_accepting_rank0(size_t max_pending) {
  ring::LinkPlan plan;
  plan.rank = 1;
  plan.size = 2;
  plan.mine = ring::Hello{0x48564454, 1, 2, 7};
  plan.accept_from = {0};
  plan.max_pending = max_pending;
  return plan;
}

uint32_t fnv1a(const std::string& s) {
  uint32_t h = 2166136261u;
  for (const char c : s) h = (h ^ static_cast<uint8_t>(c)) * 16777619u;
  return h;
}

uint16_t port_of(const std::string& addr) {
  return static_cast<uint16_t>(std::stoi(addr.substr(addr.rfind(':') + 1)));
}

// The store of the ranks that connect to the target: it reads addresses (after the setup's
// barrier, which the target needs all ranks to reach) only once the attack is over.
class GatedStore final : public hvd::bootstrap::KvStore {
 public:
  GatedStore(uint16_t port, std::shared_future<void> go) : store_(port, kRanks), go_(go) {}
  void set(const std::string& key, const std::string& value) override { store_.set(key, value); }
  std::string get(const std::string& key, std::chrono::milliseconds timeout) override {
    go_.wait();
    return store_.get(key, timeout);
  }
  void barrier(const std::string& name, std::chrono::milliseconds timeout) override {
    store_.barrier(name, timeout);
  }

 private:
  test::KvClientStore store_;
  std::shared_future<void> go_;
};

// Runs kRanks rank threads that build TCP transports and allreduce, while `attack` runs on a
// thread of its own with the address the target rank published. The target has only lower
// peers, and they start connecting only after `attack` returned: its connections are the
// first the target's listener sees, and the target serves them (it is in its setup loop)
// while the real peers wait. Returns each rank's result.
std::vector<int64_t> run_attacked(const std::function<void(const std::string&)>& attack,
                                  ring::TcpOptions options = {}) {
  hvd::store::KvServer server("127.0.0.1", 0, test::test_secret());
  std::promise<void> attacked;
  std::shared_future<void> go = attacked.get_future().share();
  std::string attacker_failed;
  std::thread attacker([&] {
    try {
      hvd::store::KvClient spy("127.0.0.1", server.port(), test::test_secret(), test::kLiveness);
      attack(spy.get("kv/ring/tcp/" + std::to_string(kTarget), test::kLiveness));
    } catch (const std::exception& e) {
      attacker_failed = e.what();
    }
    attacked.set_value();
  });
  std::vector<int64_t> sums(kRanks, -1);
  try {
    test::spawn(kRanks, [&](int rank) {
      std::unique_ptr<hvd::bootstrap::KvStore> store;
      if (rank == kTarget) {
        store = std::make_unique<test::KvClientStore>(server.port(), kRanks);
      } else {
        store = std::make_unique<GatedStore>(server.port(), go);
      }
      ring::TcpOptions o = options;
      if (o.advertise_host.empty()) o.advertise_host = "127.0.0.1";
      o.setup_timeout = test::kLiveness;
      ring::TcpTransport t(*store, rank, kRanks, test::test_secret(), o);
      int64_t v = rank + 1;
      ring::allreduce(t, BufferView{&v, 1, DataType::kInt64, {}}, ReduceOp::kSum);
      sums[static_cast<size_t>(rank)] = v;
    });
  } catch (...) {
    attacker.join();
    throw;
  }
  attacker.join();
  CHECK(attacker_failed == "");
  return sums;
}

// The local addresses (hex, as /proc/net/tcp writes them) of the IPv4 sockets listening on port.
std::vector<std::string> listening_addresses(uint16_t port) {
  std::vector<std::string> found;
  std::ifstream tcp("/proc/net/tcp");
  std::string line;
  std::getline(tcp, line);  // header
  while (std::getline(tcp, line)) {
    std::istringstream fields(line);
    std::string slot, local, remote, state;
    fields >> slot >> local >> remote >> state;
    const size_t colon = local.find(':');
    if (state == "0A" && colon != std::string::npos &&
        std::stoul(local.substr(colon + 1), nullptr, 16) == port) {
      found.push_back(local.substr(0, colon));
    }
  }
  return found;
}

const std::vector<int64_t> kExpected(kRanks, kRanks*(kRanks + 1) / 2);

}  // namespace

TEST_CASE("ring tcp: forged hellos, garbage and silent connections do not stop the ranks") {
  std::vector<net::Fd> held;
  const auto sums = run_attacked([&](const std::string& addr) {
    // The reported attack: claim rank 0 of this run before the real rank 0 connects.
    for (const std::string& bytes :
         {forged_hello(0, kRanks, fnv1a("ring")), std::string(4096, 'x'), std::string()}) {
      net::Fd fd = net::connect_tcp("127.0.0.1", port_of(addr), test::kLiveness);
      if (!bytes.empty()) net::write_all(fd.get(), bytes.data(), bytes.size());
      held.push_back(std::move(fd));  // the silent one stays open during the whole setup
    }
  });
  CHECK(sums == kExpected);
  // The target closed every connection it did not keep: each reads EOF (or a reset).
  for (const net::Fd& fd : held) {
    char byte = 0;
    ssize_t rc = 0;
    do {
      rc = recv(fd.get(), &byte, 1, 0);  // the challenge first, then the end
    } while (rc > 0);
    CHECK(rc <= 0);
  }
}

TEST_CASE("ring tcp: a client with the wrong run secret is refused and the ranks connect") {
  std::string refused;
  const auto sums = run_attacked([&](const std::string& addr) {
    net::Fd fd = net::connect_tcp("127.0.0.1", port_of(addr), test::kLiveness);
    const hvd::auth::RunSecret wrong = hvd::auth::RunSecret::generate();
    try {
      hvd::auth::prove_as_initiator(fd.get(), wrong, "ring",
                                    std::chrono::steady_clock::now() + test::kLiveness);
    } catch (const hvd::Error& e) {
      refused = e.what();
    }
  });
  CHECK(sums == kExpected);
  CHECK(!refused.empty());
}

TEST_CASE("ring tcp: a proven connection that says hello for another scope is dropped") {
  bool closed = false;
  const auto sums = run_attacked([&](const std::string& addr) {
    net::Fd fd = net::connect_tcp("127.0.0.1", port_of(addr), test::kLiveness);
    const auto deadline = std::chrono::steady_clock::now() + test::kLiveness;
    hvd::auth::prove_as_initiator(fd.get(), test::test_secret(), "ring", deadline);
    const std::string hello = forged_hello(0, kRanks, fnv1a("another-scope"));
    net::write_all(fd.get(), hello.data(), hello.size());
    char byte = 0;
    closed = !net::read_exact(fd.get(), &byte, 1, deadline);  // no hello back
  });
  CHECK(closed);
  CHECK(sums == kExpected);
}

TEST_CASE("ring tcp: the listener binds the advertised address, not every interface") {
  std::vector<std::string> bound;
  ring::TcpOptions o;
  o.advertise_host = "127.0.0.2";  // loopback too, but another address than 127.0.0.1
  const auto sums = run_attacked(
      [&](const std::string& addr) {
        CHECK(addr.rfind("127.0.0.2:", 0) == 0);
        bound = listening_addresses(port_of(addr));  // what another user sees
      },
      o);
  CHECK(sums == kExpected);
  CHECK(bound == std::vector<std::string>{"0200007F"});  // 127.0.0.2, not 00000000 (any)
}

TEST_CASE("ring tcp: a flood of silent connections past the cap does not keep the peer out") {
  const net::Fd listener = net::listen_tcp("127.0.0.1", 0);
  const uint16_t port = net::local_port(listener.get());
  const ring::LinkPlan plan = rank1_accepting_rank0(2);
  const auto deadline = std::chrono::steady_clock::now() + test::kLiveness;
  std::vector<net::Fd> flood;
  for (int i = 0; i < 5; ++i) flood.push_back(net::connect_tcp("127.0.0.1", port, test::kLiveness));
  net::Fd real = net::connect_tcp("127.0.0.1", port, test::kLiveness);  // queued last
  auto linked = std::async(std::launch::async, [&] {
    return ring::link_peers(listener.get(), plan, test::test_secret(), deadline);
  });
  // Turned away while the flood's connections are within their eviction grace, it connects
  // again, as a rank's setup does (tcp_links.cc, redial).
  for (;;) {
    try {
      hvd::auth::prove_as_initiator(real.get(), test::test_secret(), "ring", deadline);
      break;
    } catch (const hvd::auth::TurnedAway&) {
      real = net::connect_tcp("127.0.0.1", port, test::kLiveness);
    }
  }
  const std::string hello = forged_hello(0, 2, 7);
  net::write_all(real.get(), hello.data(), hello.size());
  std::string back(16, '\0');
  REQUIRE(net::read_exact(real.get(), back.data(), back.size(), deadline));
  const ring::Links links = linked.get();
  CHECK(links.peers.size() == 1);
  CHECK(links.peers.count(0) == 1);
}

// Each connection past max_pending used to drop the oldest one still handshaking: a flood of
// strangers' connections dropped a real lower peer that had not been scheduled to answer yet,
// and that peer's setup failed. Now the oldest is safe for eviction_grace; newcomers are closed.
TEST_CASE("ring tcp: a flood does not drop a peer that has not answered its challenge yet") {
  const net::Fd listener = net::listen_tcp("127.0.0.1", 0, 64);
  const uint16_t port = net::local_port(listener.get());
  ring::LinkPlan plan = rank1_accepting_rank0(4);
  plan.eviction_grace = test::kLiveness;  // the peer below is slow, however slow the machine is
  auto linked = std::async(std::launch::async, [&] {
    return ring::link_peers(listener.get(), plan, test::test_secret(),
                            std::chrono::steady_clock::now() + test::kLiveness);
  });
  const auto deadline = std::chrono::steady_clock::now() + test::kLiveness;
  // Rank 0: connected and challenged, not yet scheduled to answer.
  const net::Fd peer = net::connect_tcp("127.0.0.1", port, test::kLiveness);
  std::string challenge(hvd::auth::kChallengeBytes, '\0');
  REQUIRE(net::read_exact(peer.get(), challenge.data(), challenge.size(), deadline));
  std::vector<net::Fd> flood;
  for (int i = 0; i < 12; ++i) {
    flood.push_back(net::connect_tcp("127.0.0.1", port, test::kLiveness));
  }
  // The flood past max_pending is closed before its challenge (it used to push rank 0 out).
  for (size_t i = plan.max_pending - 1; i < flood.size(); ++i) {
    char byte = 0;
    CHECK_FALSE(net::read_exact(flood[i].get(), &byte, 1, deadline));
  }
  hvd::auth::Initiator me(test::test_secret(), "ring");
  const std::string response = me.respond(challenge);
  net::write_all(peer.get(), response.data(), response.size());
  std::string confirm(hvd::auth::kConfirmBytes, '\0');
  REQUIRE(net::read_exact(peer.get(), confirm.data(), confirm.size(), deadline));
  CHECK_NOTHROW(me.check_confirmation(confirm));
  const std::string hello = forged_hello(0, 2, 7);
  net::write_all(peer.get(), hello.data(), hello.size());
  uint32_t answer[4] = {};
  REQUIRE(net::read_exact(peer.get(), answer, sizeof(answer), deadline));
  CHECK(ntohl(answer[1]) == 1);
  const ring::Links links = linked.get();
  CHECK(links.peers.count(0) == 1);
}

// The other side of turning away: a rank whose connection a peer's full listener closed before
// the challenge connects again (a refused proof comes after the challenge and still fails).
TEST_CASE("ring tcp: a rank turned away by a peer's full listener connects again") {
  const net::Fd own = net::listen_tcp("127.0.0.1", 0, 4);  // rank 0 accepts from nobody
  const net::Fd peer_listener = net::listen_tcp("127.0.0.1", 0, 4);
  const uint16_t port = net::local_port(peer_listener.get());
  ring::LinkPlan plan;
  plan.rank = 0;
  plan.size = 2;
  plan.mine = ring::Hello{0x48564454, 0, 2, 7};
  plan.connect_to = {{1, "127.0.0.1:" + std::to_string(port)}};
  const auto deadline = std::chrono::steady_clock::now() + test::kLiveness;
  auto linked = std::async(std::launch::async, [&] {
    return ring::link_peers(own.get(), plan, test::test_secret(), deadline);
  });
  const auto next_connection = [&] {
    pollfd p{peer_listener.get(), POLLIN, 0};
    REQUIRE(::poll(&p, 1, static_cast<int>(test::kLiveness.count())) == 1);
    return net::Fd(::accept4(peer_listener.get(), nullptr, nullptr, SOCK_CLOEXEC));
  };
  next_connection();  // turned away: closed at once, before the challenge
  const net::Fd again = next_connection();
  REQUIRE(hvd::auth::prove_as_acceptor(again.get(), test::test_secret(), "ring", deadline));
  uint32_t hello[4] = {};
  REQUIRE(net::read_exact(again.get(), hello, sizeof(hello), deadline));
  CHECK(ntohl(hello[1]) == 0);
  const std::string mine = forged_hello(1, 2, 7);
  net::write_all(again.get(), mine.data(), mine.size());
  const ring::Links links = linked.get();
  CHECK(links.peers.count(1) == 1);
}
