// SPDX-License-Identifier: Apache-2.0
#pragma once
// link_peers(): the connection setup of TcpTransport (protocol in tcp_transport.h). One poll()
// loop drives, at the same time, this rank's outgoing connections to its higher peers and
// every connection that arrives on its listener, each through the run-secret proof and the
// hello. An arriving connection that fails the proof, closes, stays silent past its own short
// deadline, or proves the secret but says hello as a rank that is not an expected lower peer
// (wrong scope or size, a rank already connected) is closed and forgotten: it never ends the
// run and never stops the loop from serving the real peers. Only this rank's own outgoing
// connections can fail setup, as they go to addresses the peers published themselves.

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "auth/run_secret.h"
#include "net/socket.h"

namespace hvd::backends::ring {

/// The handshake's hello: magic, rank, size, scope hash (4 big-endian u32s).
struct Hello {
  uint32_t magic = 0;
  uint32_t rank = 0;
  uint32_t size = 0;
  uint32_t scope = 0;
};

struct LinkPlan {
  int rank = 0;
  int size = 0;
  Hello mine;
  /// Higher peers to connect to, with the "host:port" each published.
  std::map<int, std::string> connect_to;
  /// Lower peers expected to connect to this rank's listener.
  std::vector<int> accept_from;
  /// Bound on one arriving connection's proof and hello, so that a silent one does not hold a
  /// descriptor for the whole setup.
  std::chrono::milliseconds per_connection{20000};
  /// Most arriving connections handshaking at once; the oldest is dropped to make room once it
  /// is older than eviction_grace (a flood of strangers' connections must not drop a real peer
  /// that has not been scheduled to answer yet). While all are younger, a newcomer is closed
  /// before the challenge, and a rank turned away so connects again.
  size_t max_pending = 256;
  std::chrono::milliseconds eviction_grace{500};
};

/// What the setup left: one socket per peer (non-blocking, TCP_NODELAY), and the most sockets
/// (listener included) this rank held at once, for the scale benchmark.
struct Links {
  std::map<int, net::Fd> peers;
  size_t peak_sockets = 0;
};

/// Runs the setup until every peer of `plan` is connected. `listener` must be listening.
/// Throws BootstrapError naming the peer and address when an outgoing connection fails (the
/// peer refused the proof or answered as another rank), TimeoutError naming the peers still
/// missing when `deadline` passes.
Links link_peers(int listener, const LinkPlan& plan, const auth::RunSecret& secret,
                 std::chrono::steady_clock::time_point deadline);

}  // namespace hvd::backends::ring
