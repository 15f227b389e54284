// SPDX-License-Identifier: Apache-2.0
#pragma once
// ShmTransport: shared-memory channels between ranks of one host (layout and memory
// ordering in shm_segment.h).
//
// Setup (through a KvStore): every rank creates a POSIX shm segment (named
// "/hvd-<HVD_RUN_ID>-...", which hvdrun removes when the job ends) holding one ring per
// sender, publishes "name pid pid-namespace" under "<scope>/shm/<rank>", enters the barrier
// "<scope>/shm/named", maps every peer's segment, enters "<scope>/shm/mapped" and then
// unlinks its own name, so nothing is left in /dev/shm after setup (a rank killed during
// setup leaves at most its own segment).
//
// Data: a send copies into the receiver's ring in pieces and publishes each piece; the
// receiver copies out (or, in send_recv_reduce, reduces straight from the ring into its
// buffer, saving a copy). Both copies gather or scatter across the caller's pieces (pieces.h)
// as they go, so a fused message costs no copy more than a contiguous one (a chunk gathered
// from many pieces is copied as gather_copy.h measures best). Both directions of
// send_recv progress in one loop. Every message starts 64-byte aligned in the stream and
// pieces are multiples of 64 bytes, so a piece never splits an element. Waiting spins
// briefly, then yields, then sleeps on a futex doorbell.
//
// Failure: a rank whose transport is destroyed sets its `closed` flag and rings everyone;
// peers that still need it throw BackendError. A peer process that dies without that
// (SIGKILL) is noticed through its pid when both ranks share a pid namespace; otherwise, and
// for a live peer that stops participating, the call throws TimeoutError at its deadline.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "bootstrap/kv_store.h"
#include "transport/shm/shm_segment.h"
#include "transport/transport.h"

namespace hvd::backends::ring {

/// HVD_RUN_ID from the process environment ("" without one).
std::string run_id_from_env();

struct ShmOptions {
  /// Prefix of the store keys. Every transport built over the same store needs its own.
  std::string scope = "ring";
  /// Ring bytes per ordered pair of ranks: a power of two, at least 4 KiB, the same on every
  /// rank. 0 picks 1 MiB, halved while size x channel exceeds 8 MiB (down to 64 KiB). Each
  /// rank's segment holds `size` channels and is fully allocated in /dev/shm.
  size_t channel_bytes = 0;
  /// Bound on setup (the constructor), which waits for the slowest rank to start. libhvd
  /// passes HVD_BOOTSTRAP_TIMEOUT (make_transport()), so a missing rank holds the others no
  /// longer than the user asked.
  std::chrono::milliseconds setup_timeout{60000};
  /// Bound on every send_recv / send_recv_reduce call.
  std::chrono::milliseconds timeout{30000};
  /// Segment names start with "/hvd-<run_id>-" so that hvdrun can remove what a killed rank
  /// left in /dev/shm. 1 to 64 of [0-9A-Za-z_-]; anything else becomes "norun".
  std::string run_id = run_id_from_env();
};

class ShmTransport final : public Transport {
 public:
  /// Creates and maps the segments. Collective: every rank of the store's run (whose ranks
  /// must be [0, size), all on this host) constructs one with the same scope, as setup uses
  /// the store's barrier; with size 1 the store is not touched. Throws BootstrapError,
  /// ConfigError (bad channel size) or TimeoutError.
  ShmTransport(bootstrap::KvStore& store, int rank, int size, ShmOptions options = {});
  /// Marks this rank closed and wakes the peers, so that any still waiting on it fail.
  ~ShmTransport() override;
  ShmTransport(const ShmTransport&) = delete;
  ShmTransport& operator=(const ShmTransport&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::chrono::milliseconds timeout() const override { return options_.timeout; }

  using Transport::send_recv;
  using Transport::send_recv_reduce;
  void send_recv(int to, PieceSpan send, int from, PieceSpan recv) override;
  void send_recv_reduce(int to, PieceSpan send, int from, PieceSpan acc, DataType dtype,
                        ReduceOp op) override;

 private:
  struct Peer;
  struct Transfer;

  void connect(bootstrap::KvStore& store);
  void map_peers(bootstrap::KvStore& store, const std::function<std::string(int)>& key);
  void exchange(Transfer& t);
  size_t push_room(int to, size_t remaining) const;
  size_t pull_avail(int from) const;
  bool push(Transfer& t);
  bool pull(Transfer& t);
  void wait(Transfer& t);
  void check_peers(const Transfer& t) const;

  int rank_;
  int size_;
  ShmOptions options_;
  size_t step_ = 0;              // bytes moved per published piece
  bool oversubscribed_ = false;  // more ranks than cores: waits skip spinning
  std::vector<Peer> peers_;      // indexed by rank; peers_[rank_] holds this rank's own segment
};

}  // namespace hvd::backends::ring
