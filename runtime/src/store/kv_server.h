// SPDX-License-Identifier: Apache-2.0
#pragma once
// The rendezvous store's server: an in-memory key-value map that hvdrun hosts for one run,
// spoken to over TCP with the protocol in store/kv_protocol.h.
//
// One background thread runs a poll() loop over the listening socket, every client connection
// and a wake-up eventfd; there is no thread per client, so thousands of ranks cost one thread.
// WAIT requests that cannot be answered yet are parked on their connection with a deadline;
// a SET or ADD that creates one of their keys moves them on, and the poll timeout is the
// nearest deadline, at which they get TIMEOUT.
//
// Error policy: whatever goes wrong with one connection (malformed frame, reset, EOF in the
// middle of a frame, allocation failure for its request) drops that connection and its parked
// WAIT; other clients are not affected. Nothing in the loop ends the process.

#include <cstdint>
#include <memory>
#include <string>

namespace hvd::store {

class KvServer {
 public:
  /// Binds bind_addr:port (port 0 = any free port) and starts the serving thread.
  /// Throws BootstrapError when the address cannot be bound.
  KvServer(const std::string& bind_addr, uint16_t port);
  /// Stops the thread and closes every connection (see stop()).
  ~KvServer();
  KvServer(const KvServer&) = delete;
  KvServer& operator=(const KvServer&) = delete;

  /// The port actually bound (useful with port 0).
  uint16_t port() const;

  /// Wakes the serving thread, joins it and closes the listening socket and all connections,
  /// so clients blocked in a call get an error. Idempotent; call from any thread but the
  /// serving one. The stored data is dropped with the server.
  void stop();

 private:
  class Loop;  // the state owned by the serving thread (kv_server.cc)
  std::unique_ptr<Loop> loop_;
};

}  // namespace hvd::store
