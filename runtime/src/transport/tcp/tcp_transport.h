// SPDX-License-Identifier: Apache-2.0
#pragma once
// TcpTransport: TCP connections between the ranks of one communicator, on any hosts, to the
// O(log size) peers its collectives use (ring_peers.h), not to every rank.
//
// Setup (through a KvStore, so any bootstrap can drive it; the store is not used afterwards):
//   1. Every rank listens on an ephemeral port of the address it advertises (never 0.0.0.0
//      unless bind_addr says so), publishes "host:port" under "<scope>/tcp/<rank>" and enters
//      the store's barrier "<scope>/tcp" (so it works with stores whose values travel only at
//      barriers).
//   2. It reads the addresses of its HIGHER peers only, and connects to each; its lower peers
//      connect to it. Per connection, before anything else:
//        acceptor -> initiator  challenge  |
//        initiator -> acceptor  response   | auth/handshake.h, purpose "ring", HVD_RUN_SECRET
//        acceptor -> initiator  confirm    |
//        initiator -> acceptor  hello      magic "HVDT", rank, size, scope hash (4 x u32 BE)
//        acceptor -> initiator  hello      the same, for the acceptor
//   3. One poll() loop drives all of this rank's connections at once (tcp_links.h). An
//      arriving connection that fails the proof, sends garbage or nothing, or proves the secret
//      but says hello as a rank this one does not expect (another scope or size, a duplicate),
//      is closed and forgotten, and the listener keeps accepting until every expected peer is
//      in or the setup deadline passes: another user who connects first cannot end the run.
//   4. The listener is closed; stragglers get "connection refused".
// A connection is made for every peer at setup rather than on first use: then no rank can wait
// in a connect for a peer that is busy elsewhere, and the store can be let go right after.
//
// Data: send_recv drives both sockets non-blocking from one poll() loop, so two ranks sending
// each other large messages never deadlock on full socket buffers; sendmsg()/recvmsg() gather
// and scatter the caller's pieces (pieces.h). send_recv_reduce reduces
// each received element as soon as it is complete, through a bounded scratch ring.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "auth/run_secret.h"
#include "bootstrap/kv_store.h"
#include "net/socket.h"
#include "transport/transport.h"

namespace hvd::backends::ring {

struct TcpOptions {
  /// Prefix of the store keys. Every transport built over the same store needs its own.
  std::string scope = "ring";
  /// Address to listen on; "" means the advertised one (advertise_host, or this host's name; a
  /// name this host resolves to loopback is a BootstrapError, as other hosts reach it elsewhere
  /// and every interface is not an answer), "0.0.0.0" every interface (never set by libhvd).
  std::string bind_addr;
  /// Host name or address the other ranks use to reach this one; "" means gethostname().
  std::string advertise_host;
  /// Bound on setup (the constructor), which waits for the slowest rank to start. libhvd
  /// passes HVD_BOOTSTRAP_TIMEOUT (make_transport()), so a missing rank holds the others no
  /// longer than the user asked.
  std::chrono::milliseconds setup_timeout{60000};
  /// Bound on every send_recv / send_recv_reduce call.
  std::chrono::milliseconds timeout{30000};
  /// Connect every pair of ranks at setup, as before the O(log N) scheme: only for the scale
  /// benchmark's baseline (bench/ring_scale), never set by libhvd.
  bool connect_all_at_setup = false;
};

class TcpTransport final : public Transport {
 public:
  /// Connects this rank to its peers. Collective: every rank of the store's run (whose ranks
  /// must be [0, size)) constructs one with the same scope and secret, as setup uses the
  /// store's barrier; with size 1 the store is not touched. Throws BootstrapError (naming the
  /// peer rank and its address) or TimeoutError. `store` and `secret` are used only during
  /// construction.
  TcpTransport(bootstrap::KvStore& store, int rank, int size, const auth::RunSecret& secret,
               TcpOptions options = {});

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::chrono::milliseconds timeout() const override { return options_.timeout; }

  using Transport::send_recv;
  using Transport::send_recv_reduce;
  void send_recv(int to, PieceSpan send, int from, PieceSpan recv) override;
  void send_recv_reduce(int to, PieceSpan send, int from, PieceSpan acc, DataType dtype,
                        ReduceOp op) override;

  /// Sockets to peers now open (the listener is closed after setup).
  size_t connections() const { return peers_.size(); }
  /// The most sockets this rank held at once during setup, listener included.
  size_t peak_sockets() const { return peak_sockets_; }

 private:
  void connect_peers(bootstrap::KvStore& store, const auth::RunSecret& secret);
  void link(bootstrap::KvStore& store, const auth::RunSecret& secret,
            const std::function<std::string(int)>& key);
  int fd_of(int peer, size_t bytes) const;

  int rank_;
  int size_;
  TcpOptions options_;
  std::map<int, net::Fd> peers_;  // only the peers of ring_peers.h
  size_t peak_sockets_ = 0;
  std::vector<char> scratch_;  // receive ring of send_recv_reduce
};

}  // namespace hvd::backends::ring
