// SPDX-License-Identifier: Apache-2.0
#pragma once
// Transport: point-to-point byte exchange between the ranks of one communicator. The ring
// collectives (collectives.h) are written against this interface only, so they never see a
// socket or a shared-memory segment (gloo's pair/context split). Implementations:
// TcpTransport (any hosts) and ShmTransport (ranks of one host).
//
// Contract shared by every implementation:
// - Messages between an ordered pair of ranks arrive in the order they were sent, and the
//   receiver asks for exactly as many bytes as the sender sends (the collectives guarantee
//   this; a transport may not detect a mismatch). Zero-byte messages are no-ops: they neither
//   send anything nor synchronize.
// - A message is a list of pieces (pieces.h), gathered on send and scattered on receive; how
//   the sender and the receiver cut the same message into pieces need not agree. Every piece
//   of a reduced message holds whole elements.
// - Every call blocks until its bytes have moved, at most for timeout() from its start. A
//   peer that stalls makes the call throw TimeoutError; a peer that is gone (closed its
//   transport, connection reset, process exited) makes it throw BackendError. Both messages
//   name this rank and the peer's rank. After such an error the transport is unusable.
// - Not thread-safe: one thread (the background loop, or a test's rank thread) drives it.

#include <chrono>
#include <cstddef>

#include "hvd/tensor.h"
#include "transport/pieces.h"

namespace hvd::backends::ring {

/// Passed as `to` or `from` when a call has no peer in that direction.
inline constexpr int kNoPeer = -1;

class Transport {
 public:
  virtual ~Transport() = default;

  /// This rank, in [0, size()).
  virtual int rank() const = 0;
  /// Number of ranks in the communicator.
  virtual int size() const = 0;
  /// The per-call deadline.
  virtual std::chrono::milliseconds timeout() const = 0;

  /// Full-duplex exchange: sends the bytes of `send` to rank `to` while receiving into
  /// `recv` from rank `from`, making progress on both at once, so that two ranks exchanging
  /// large messages with each other never deadlock. `to` and `from` may be the same rank,
  /// or kNoPeer (with 0 bytes). No piece of send may overlap one of recv.
  virtual void send_recv(int to, PieceSpan send, int from, PieceSpan recv) = 0;

  /// Like send_recv, but the elements received from `from` are combined into the pieces of
  /// acc (acc = acc op received) as they arrive, overlapping the reduction with the transfer.
  /// No piece of acc may overlap one of send.
  virtual void send_recv_reduce(int to, PieceSpan send, int from, PieceSpan acc, DataType dtype,
                                ReduceOp op) = 0;

  /// send_recv of one contiguous buffer each way.
  void send_recv(int to, const void* sbuf, size_t sbytes, int from, void* rbuf, size_t rbytes) {
    const Piece s = read_only(sbuf, sbytes);
    const Piece r{static_cast<char*>(rbuf), rbytes};
    send_recv(to, PieceSpan{&s, 1}, from, PieceSpan{&r, 1});
  }
  /// send_recv_reduce of one contiguous buffer each way (`count` elements into acc).
  void send_recv_reduce(int to, const void* sbuf, size_t sbytes, int from, void* acc, size_t count,
                        DataType dtype, ReduceOp op) {
    const Piece s = read_only(sbuf, sbytes);
    const Piece a{static_cast<char*>(acc), count * dtype_size(dtype)};
    send_recv_reduce(to, PieceSpan{&s, 1}, from, PieceSpan{&a, 1}, dtype, op);
  }

  /// Blocking send of bytes to rank `to`.
  void send(int to, const void* buf, size_t bytes) {
    send_recv(to, buf, bytes, kNoPeer, nullptr, 0);
  }
  /// Blocking receive of exactly `bytes` from rank `from`.
  void recv(int from, void* buf, size_t bytes) { send_recv(kNoPeer, nullptr, 0, from, buf, bytes); }

 private:
  // Sent pieces are only read (Piece's contract), so dropping const here writes nothing.
  static Piece read_only(const void* data, size_t bytes) {
    return Piece{const_cast<char*>(static_cast<const char*>(data)), bytes};
  }
};

}  // namespace hvd::backends::ring
