// SPDX-License-Identifier: Apache-2.0
#pragma once
// TcpTransport: a full mesh of TCP connections, one per pair of ranks, for ranks on any
// hosts.
//
// Setup (through a KvStore, so any bootstrap can drive it): every rank listens on an
// ephemeral port, publishes "host:port" under "<scope>/tcp/<rank>" and enters the store's
// barrier "<scope>/tcp" (so it works with stores whose values travel only at barriers); it
// then connects to every higher rank and accepts every lower one. Both ends of a connection send a
// handshake (magic, rank, size, scope hash) and check the other's, so a stale address from another
// run or communicator is refused instead of silently mixing streams.
//
// Data: send_recv drives both sockets non-blocking from one poll() loop, so two ranks sending
// each other large messages never deadlock on full socket buffers. send_recv_reduce reduces
// each received element as soon as it is complete, through a bounded scratch ring.

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "backends/ring/transport.h"
#include "bootstrap/kv_store.h"
#include "net/socket.h"

namespace hvd::backends::ring {

struct TcpOptions {
  /// Prefix of the store keys. Every transport built over the same store needs its own.
  std::string scope = "ring";
  /// Address to listen on; "" means every interface.
  std::string bind_addr;
  /// Host name or address the other ranks use to reach this one; "" means gethostname().
  std::string advertise_host;
  /// Bound on setup (the constructor), which waits for the slowest rank to start.
  std::chrono::milliseconds setup_timeout{60000};
  /// Bound on every send_recv / send_recv_reduce call.
  std::chrono::milliseconds timeout{30000};
};

class TcpTransport final : public Transport {
 public:
  /// Connects the mesh. Collective: every rank of the store's run (whose ranks must be
  /// [0, size)) constructs one with the same scope, as setup uses the store's barrier; with
  /// size 1 the store is not touched. Throws BootstrapError (naming the peer rank and its
  /// address) or TimeoutError. `store` is used only during construction.
  TcpTransport(bootstrap::KvStore& store, int rank, int size, TcpOptions options = {});

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::chrono::milliseconds timeout() const override { return options_.timeout; }

  void send_recv(int to, const void* sbuf, size_t sbytes, int from, void* rbuf,
                 size_t rbytes) override;
  void send_recv_reduce(int to, const void* sbuf, size_t sbytes, int from, void* acc, size_t count,
                        DataType dtype, ReduceOp op) override;

 private:
  void connect_mesh(bootstrap::KvStore& store);
  void connect_to(int peer, const std::string& addr, const std::array<uint32_t, 4>& hello,
                  std::chrono::steady_clock::time_point deadline);
  int fd_of(int peer, size_t bytes) const;

  int rank_;
  int size_;
  TcpOptions options_;
  std::vector<net::Fd> peers_;  // indexed by rank; empty for this rank
  std::vector<char> scratch_;   // receive ring of send_recv_reduce
};

}  // namespace hvd::backends::ring
