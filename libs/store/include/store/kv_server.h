// SPDX-License-Identifier: Apache-2.0
#pragma once
// The rendezvous store's server: an in-memory key-value map that hvdrun hosts for one run,
// spoken to over TCP with the protocol in store/kv_protocol.h.
//
// One background thread runs a poll() loop over the listening socket, every client connection
// and a wake-up eventfd; there is no thread per client, so thousands of ranks cost one thread.
// The data and the parked WAITs live in a KvTable (store/kv_table.h).
//
// Authentication: the port is reachable by every user of the cluster, and ranks trust what the
// store says about peer addresses and shared-memory names. So every connection first runs the
// acceptor side of auth/handshake.h with the run's secret: the server sends its challenge on
// accept, and until the peer's kResponseBytes response has proven the secret the connection may
// send nothing else. A wrong MAC, any other byte, or no proof within StoreLimits::auth_timeout
// closes it without an answer. (The run id in the keys is a namespace, not a security
// boundary: it is guessable.)
//
// Limits (store/store_limits.h) bound what any peer can make the server hold; at the
// connection cap it logs one line, once.
//
// Error policy: whatever goes wrong with one connection (failed proof, malformed or oversized
// frame, reset, EOF in the middle of a frame, allocation failure for its request) drops that
// connection and its parked WAIT; other clients are not affected. Nothing in the loop ends the
// process.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "auth/run_secret.h"
#include "store/store_limits.h"

namespace hvd::store {

/// Where the server's one-line warnings go (default: stderr).
using LogSink = std::function<void(const std::string& line)>;

class KvServer {
 public:
  /// Binds bind_addr:port (port 0 = any free port) and starts the serving thread. Only peers
  /// that prove `secret` are served. Throws BootstrapError when the address cannot be bound.
  KvServer(const std::string& bind_addr, uint16_t port, const auth::RunSecret& secret,
           const StoreLimits& limits = StoreLimits{}, LogSink log = {});
  /// Stops the thread and closes every connection (see stop()).
  ~KvServer();
  KvServer(const KvServer&) = delete;
  KvServer& operator=(const KvServer&) = delete;

  /// The port actually bound (useful with port 0).
  uint16_t port() const;

  /// The counters as of the end of the serving thread's latest poll round. Any thread.
  StoreStats stats() const;

  /// Wakes the serving thread, joins it and closes the listening socket and all connections,
  /// so clients blocked in a call get an error. Idempotent; call from any thread but the
  /// serving one. The stored data is dropped with the server.
  void stop();

 private:
  class Loop;  // the state owned by the serving thread (kv_server.cc)
  std::unique_ptr<Loop> loop_;
};

}  // namespace hvd::store
