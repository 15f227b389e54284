// SPDX-License-Identifier: Apache-2.0
#pragma once
// Worlds of N rank threads, each with a real transport (TCP on loopback or shared memory),
// connected through an in-process rendezvous store.

#include <chrono>
#include <memory>

#include "auth/run_secret.h"
#include "fakes/kv_client_store.h"
#include "fakes/thread_world.h"
#include "store/kv_server.h"
#include "transport/shm/shm_transport.h"
#include "transport/tcp/tcp_transport.h"

namespace hvd::test {

namespace ring = hvd::backends::ring;

enum class TransportKind { kTcp, kShm };

inline const char* kind_name(TransportKind k) { return k == TransportKind::kTcp ? "tcp" : "shm"; }

/// A liveness bound: never reached when things work.
inline constexpr std::chrono::milliseconds kLiveness{20000};

inline std::unique_ptr<ring::Transport> make_transport(TransportKind kind,
                                                       bootstrap::KvStore& store, int rank,
                                                       int size,
                                                       std::chrono::milliseconds timeout) {
  if (kind == TransportKind::kTcp) {
    ring::TcpOptions o;
    o.bind_addr = "127.0.0.1";
    o.advertise_host = "127.0.0.1";
    o.setup_timeout = kLiveness;
    o.timeout = timeout;
    return std::make_unique<ring::TcpTransport>(store, rank, size, test_secret(), o);
  }
  ring::ShmOptions o;
  o.setup_timeout = kLiveness;
  o.timeout = timeout;
  return std::make_unique<ring::ShmTransport>(store, rank, size, o);
}

/// Runs fn(transport) on n rank threads, each with its own transport of `kind`, connected
/// through an in-process store. Rethrows the first rank's exception.
template <typename Fn>
void run_world(TransportKind kind, int n, Fn&& fn, std::chrono::milliseconds timeout = kLiveness) {
  store::KvServer server("127.0.0.1", 0, test::test_secret());
  spawn(n, [&](int rank) {
    KvClientStore store(server.port(), n);
    const std::unique_ptr<ring::Transport> t = make_transport(kind, store, rank, n, timeout);
    fn(*t);
  });
}

}  // namespace hvd::test
