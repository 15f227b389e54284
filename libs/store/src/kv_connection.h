// SPDX-License-Identifier: Apache-2.0
#pragma once
// One client connection of the store's server (store/kv_server.cc) and its non-blocking I/O.
// Serving thread only.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "auth/handshake.h"
#include "net/socket.h"

namespace hvd::store {

struct KvConnection {
  uint64_t id = 0;
  net::Fd fd;
  std::string in;
  std::string out;
  size_t out_sent = 0;
  /// Set until the peer has proven the run's secret; then null.
  std::unique_ptr<auth::Acceptor> acceptor;
  std::chrono::steady_clock::time_point accepted_at;
  bool eof = false;   // the peer closed its side
  bool dead = false;  // dropped; erased at the end of the server's cycle

  /// Bytes of buffer this connection holds (what a peer can make the server allocate).
  size_t held_bytes() const { return in.capacity() + out.capacity(); }
};

/// Reads what is available without blocking until `in` holds `limit` bytes. Sets eof when the
/// peer closed, reset or broke the connection.
void read_available(KvConnection& c, size_t limit);

/// Sends what the socket takes without blocking. Returns false when the connection broke
/// (the caller drops it).
bool send_available(KvConnection& c);

/// Gives back a buffer's memory once it is empty and large, so that one big frame does not
/// stay pinned for the life of the connection.
void release_if_large(std::string& s);

}  // namespace hvd::store
