// SPDX-License-Identifier: Apache-2.0
// The Transport contract, checked on both implementations: ordering, full duplex, reduction
// on receipt, and failures (closed, stalled or dead peers) that throw instead of hanging.
// Short timeouts here are meant to expire; nothing is asserted about how long anything took.
#include <dirent.h>
#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <cstdint>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include "common/spin_wait.h"
#include "hvd/error.h"
#include "hvd/str_cat.h"
#include "transport/transport.h"
#include "unit/runtime/ring/ring_world.h"

using hvd::DataType;
using hvd::ReduceOp;
using hvd::test::TransportKind;
using std::chrono::milliseconds;
namespace test = hvd::test;
namespace ring = hvd::backends::ring;

namespace {

constexpr TransportKind kKinds[] = {TransportKind::kShm, TransportKind::kTcp};

std::vector<uint8_t> pattern(size_t n, int seed) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = static_cast<uint8_t>((i * 131 + static_cast<size_t>(seed) * 17) >> 3);
  return v;
}

}  // namespace

TEST_CASE("ring transports: messages between every pair arrive in order") {
  for (const TransportKind kind : kKinds) {
    CAPTURE(test::kind_name(kind));
    test::run_world(kind, 4, [&](ring::Transport& t) {
      const int me = t.rank();
      // Three messages of odd sizes to each peer, with plain send/recv ordered by rank so
      // that it cannot deadlock, then one exchange with every peer through send_recv.
      for (int peer = 0; peer < t.size(); ++peer) {
        if (peer == me) continue;
        for (int k = 0; k < 3; ++k) {
          const size_t bytes = 1 + static_cast<size_t>(k) * 70001;
          std::vector<uint8_t> in(bytes);
          if (me < peer) {
            t.send(peer, pattern(bytes, me * 10 + k).data(), bytes);
            t.recv(peer, in.data(), bytes);
          } else {
            t.recv(peer, in.data(), bytes);
            t.send(peer, pattern(bytes, me * 10 + k).data(), bytes);
          }
          CHECK(in == pattern(bytes, peer * 10 + k));
        }
      }
      for (int s = 1; s < t.size(); ++s) {
        const int to = (me + s) % t.size();
        const int from = (me - s + t.size()) % t.size();
        const std::vector<uint8_t> out = pattern(size_t{1000} * static_cast<size_t>(to + 1), me);
        std::vector<uint8_t> in(size_t{1000} * static_cast<size_t>(me + 1));
        t.send_recv(to, out.data(), out.size(), from, in.data(), in.size());
        CHECK(in == pattern(in.size(), from));
      }
    });
  }
}

TEST_CASE("ring transports: large messages both ways at once do not deadlock") {
  for (const TransportKind kind : kKinds) {
    CAPTURE(test::kind_name(kind));
    test::run_world(kind, 2, [&](ring::Transport& t) {
      const size_t bytes = size_t{8} << 20;
      const int peer = 1 - t.rank();
      const std::vector<uint8_t> out = pattern(bytes, t.rank());
      std::vector<uint8_t> in(bytes);
      t.send_recv(peer, out.data(), bytes, peer, in.data(), bytes);
      CHECK(in == pattern(bytes, peer));
    });
  }
}

TEST_CASE("ring transports: send_recv_reduce after a misaligning message") {
  for (const TransportKind kind : kKinds) {
    CAPTURE(test::kind_name(kind));
    test::run_world(kind, 2, [&](ring::Transport& t) {
      const int peer = 1 - t.rank();
      for (const size_t count : {size_t{1}, size_t{1023}, (size_t{3} << 17) + 5}) {
        // A 3-byte message first, so that the doubles do not start on an aligned stream offset.
        uint8_t odd[3] = {1, 2, 3};
        uint8_t odd_in[3] = {};
        t.send_recv(peer, odd, 3, peer, odd_in, 3);
        std::vector<double> mine(count);
        std::vector<double> acc(count);
        for (size_t i = 0; i < count; ++i) {
          mine[i] = static_cast<double>(i) * (t.rank() + 1);
          acc[i] = 0.5;
        }
        t.send_recv_reduce(peer, mine.data(), count * sizeof(double), peer, acc.data(), count,
                           DataType::kFloat64, ReduceOp::kSum);
        size_t bad = 0;
        for (size_t i = 0; i < count; ++i)
          bad += acc[i] != 0.5 + static_cast<double>(i) * (peer + 1);
        CHECK(bad == 0);
      }
    });
  }
}

TEST_CASE("ring transports: a rank whose waits may not spin sleeps until its peer comes") {
  // The background loop of a rank on one core (common/spin_wait.h): its waits go to sleep at
  // once, and the peer's writes must still wake it, for a message that needs one wait and for
  // one that needs many (8 MiB through a smaller channel, waiting for room and for data).
  for (const TransportKind kind : kKinds) {
    CAPTURE(test::kind_name(kind));
    test::run_world(kind, 2, [&](ring::Transport& t) {
      const int peer = 1 - t.rank();
      if (t.rank() == 0) hvd::set_waits_may_spin(false);
      for (const size_t bytes : {size_t{1}, size_t{8} << 20}) {
        // Rank 1 comes late, so that rank 0 waits (asleep) before anything arrives.
        if (t.rank() == 1) std::this_thread::sleep_for(milliseconds(20));
        const std::vector<uint8_t> out = pattern(bytes, t.rank());
        std::vector<uint8_t> in(bytes);
        t.send_recv(peer, out.data(), bytes, peer, in.data(), bytes);
        CHECK(in == pattern(bytes, peer));
      }
    });
  }
}

TEST_CASE("ring transports: a peer that closed its transport is a BackendError naming it") {
  for (const TransportKind kind : kKinds) {
    CAPTURE(test::kind_name(kind));
    std::string error;
    test::run_world(kind, 2, [&](ring::Transport& t) {
      if (t.rank() == 1) return;  // leaves: its transport is destroyed
      const std::vector<uint8_t> out(size_t{4} << 20);
      std::vector<uint8_t> in(16);
      try {
        t.send_recv(1, out.data(), out.size(), 1, in.data(), in.size());
      } catch (const hvd::BackendError& e) {
        error = e.what();
      }
    });
    CHECK(error.find("rank 1") != std::string::npos);
  }
}

TEST_CASE("ring transports: a peer that stalls is a TimeoutError naming it") {
  for (const TransportKind kind : kKinds) {
    CAPTURE(test::kind_name(kind));
    std::string error;
    test::run_world(
        kind, 2,
        [&](ring::Transport& t) {
          if (t.rank() == 1) {
            std::this_thread::sleep_for(3 * t.timeout());  // alive but silent
            return;
          }
          uint8_t byte = 0;
          try {
            t.recv(1, &byte, 1);
          } catch (const hvd::TimeoutError& e) {
            error = e.what();
          }
        },
        milliseconds(300));
    CHECK(error.find("rank 1") != std::string::npos);
  }
}

TEST_CASE("ring transports: a peer process that dies mid-transfer is a BackendError") {
  for (const TransportKind kind : kKinds) {
    CAPTURE(test::kind_name(kind));
    hvd::store::KvServer server("127.0.0.1", 0, test::test_secret());
    const uint16_t port = server.port();
    const pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
      // Rank 1: sends half of what rank 0 waits for, then exits without any cleanup.
      try {
        test::KvClientStore store(port, 2);
        auto t = test::make_transport(kind, store, 1, 2, milliseconds(10000));
        const std::vector<uint8_t> half(size_t{1} << 20);
        t->send(0, half.data(), half.size());
        _exit(0);  // inside the transport's scope: its destructor must not run
      } catch (...) {
      }
      _exit(1);
    }
    // Reap promptly, as hvdrun does: a zombie still answers kill(pid, 0).
    std::thread reaper([child] { waitpid(child, nullptr, 0); });
    std::string error;
    {
      test::KvClientStore store(port, 2);
      auto t = test::make_transport(kind, store, 0, 2, milliseconds(10000));
      std::vector<uint8_t> all(size_t{2} << 20);
      try {
        t->recv(1, all.data(), all.size());
      } catch (const hvd::BackendError& e) {
        error = e.what();
      }
    }
    reaper.join();
    CHECK(error.find("rank 1") != std::string::npos);
    // Over shm nothing marked the channel closed: the dead pid is what was noticed.
    if (kind == TransportKind::kShm) CHECK(error.find("exited") != std::string::npos);
  }
}

TEST_CASE("ring shm: segments are unlinked once every rank has mapped them") {
  // Names are "hvd-<run id>-<pid>-...": this process's are the ones with its pid.
  const std::string pid_part = hvd::str_cat("-", getpid(), "-");
  test::run_world(TransportKind::kShm, 3, [&](ring::Transport& t) {
    const uint8_t token = 1;
    uint8_t got = 0;
    // A round trip with everyone: all constructors have returned on every rank.
    for (int peer = 0; peer < t.size(); ++peer) {
      if (peer != t.rank()) t.send_recv(peer, &token, 1, peer, &got, 1);
    }
    size_t left = 0;
    if (DIR* dir = opendir("/dev/shm")) {
      while (const dirent* e = readdir(dir)) {
        const std::string name = e->d_name;
        left += name.rfind("hvd-", 0) == 0 && name.find(pid_part) != std::string::npos;
      }
      closedir(dir);
    }
    CHECK(left == 0);
  });
}

TEST_CASE("ring shm: a channel size that is not a power of two is a ConfigError") {
  hvd::store::KvServer server("127.0.0.1", 0, test::test_secret());
  test::KvClientStore store(server.port(), 2);
  ring::ShmOptions o;
  o.channel_bytes = 100000;
  CHECK_THROWS_AS(ring::ShmTransport(store, 0, 2, o), hvd::ConfigError);
}

namespace {

// Records what a rank publishes, then fails the first barrier, as a store whose other ranks
// never come would (sooner).
class RecordingStore : public hvd::bootstrap::KvStore {
 public:
  void set(const std::string& key, const std::string& value) override { values[key] = value; }
  std::string get(const std::string& key, std::chrono::milliseconds) override {
    return values.at(key);
  }
  void barrier(const std::string& name, std::chrono::milliseconds) override {
    throw hvd::TimeoutError("test: barrier " + name);
  }
  std::map<std::string, std::string> values;
};

bool shm_exists(const std::string& name) { return access(("/dev/shm" + name).c_str(), F_OK) == 0; }

}  // namespace

TEST_CASE("ring shm: segment names start with hvd-RUNID- and an unsafe run id is not used") {
  // hvdrun removes /dev/shm/hvd-<its run id>-* at the end of the job; that needs the run id in
  // the name. Before, names were "/hvd-<pid>-...".
  for (const auto& [run_id, expected] :
       std::vector<std::pair<std::string, std::string>>{{"5f3a-12-00ab", "/hvd-5f3a-12-00ab-"},
                                                        {"../../etc/x", "/hvd-norun-"},
                                                        {"", "/hvd-norun-"}}) {
    RecordingStore store;
    ring::ShmOptions o;
    o.run_id = run_id;
    CHECK_THROWS_AS(ring::ShmTransport(store, 0, 2, o), hvd::TimeoutError);
    const std::string published = store.values.at("ring/shm/0");
    const std::string name = published.substr(0, published.find(' '));
    CHECK(name.rfind(expected, 0) == 0);
    CHECK_FALSE(shm_exists(name));  // a setup that fails unlinks its own segment
  }
}
