// SPDX-License-Identifier: Apache-2.0
#pragma once
// The rendezvous store's resource limits, and the counters that show how close a run came.
//
// The store listens on a port that every user of a shared cluster can reach, so each resource
// a peer can make it hold is bounded: bytes per frame, bytes buffered per connection, bytes of
// keys and values in total, connections in total, and connections that have not proven the
// run's secret yet (they may hold no more than the handshake needs, and only for a while).
// What a run stores is small: per rank an address, a shared-memory name, an NCCL unique id
// (128 bytes), a barrier count; the largest single value, a packed list of every rank's host
// name (bootstrap/topology.cc, only when hvdrun did not set local/cross ranks), is about
// 1 MiB at 16,384 ranks of 64-character names.

#include <chrono>
#include <cstddef>
#include <cstdint>

namespace hvd::store {

struct StoreLimits {
  /// Largest frame body a connection may announce; larger closes the connection. At most the
  /// protocol's kMaxFrameBytes.
  size_t max_frame_bytes = size_t{4} << 20;
  /// Replies queued for a client that does not read them; past it the client's further
  /// requests wait. Its own input is bounded by one frame.
  size_t max_output_bytes = size_t{4} << 20;
  /// Keys plus values held in total. A SET or ADD past it gets an ERROR reply.
  size_t max_stored_bytes = size_t{256} << 20;
  /// Open connections, authenticated or not. At the cap the server stops accepting (logging
  /// one line the first time) until one closes, except that it evicts the oldest
  /// unauthenticated connection to make room.
  size_t max_connections = 4096;
  /// Connections still authenticating; when full, the oldest one is closed to make room, so
  /// that half-open connections cannot lock the ranks out.
  size_t max_unauthenticated = 1024;
  /// How long a connection may take to prove the secret before it is closed.
  std::chrono::milliseconds auth_timeout{10000};
  /// How long a connection is safe from eviction after it is accepted: a rank answers the
  /// challenge within one round trip, but only once it is scheduled, and a flood of strangers'
  /// connections must not evict it before. While every unauthenticated connection is younger,
  /// a newcomer is closed before its challenge (auth::TurnedAway), and the client connects again.
  std::chrono::milliseconds eviction_grace{500};

  /// Defaults sized for a run of `ranks` ranks: each holds one connection (two during
  /// hand-overs), bounded by this process's RLIMIT_NOFILE soft limit less a reserve.
  static StoreLimits for_ranks(int ranks);
};

/// What the server holds now and the most it held, for tests and the bootstrap benchmark.
struct StoreStats {
  size_t connections = 0;
  size_t peak_connections = 0;
  size_t unauthenticated = 0;
  size_t authenticated_total = 0;  // connections that ever proved the secret
  size_t rejected = 0;             // closed for a failed proof, a bad first byte or a timeout
  size_t evicted = 0;              // unauthenticated, closed to make room
  size_t turned_away = 0;          // closed before the challenge: no room, all were young
  size_t stored_bytes = 0;         // keys + values
  size_t peak_stored_bytes = 0;
  size_t buffered_bytes = 0;  // input and output buffers of all connections
  size_t peak_buffered_bytes = 0;
  size_t peak_connection_buffer = 0;  // the most one connection's buffers ever held
};

}  // namespace hvd::store
