// SPDX-License-Identifier: Apache-2.0
#include "backends/ring/collectives.h"

#include <cstring>
#include <numeric>

#include "backends/ring/bruck_alltoall.h"
#include "backends/ring/ring_phases.h"
#include "common/reduce_kernels.h"
#include "hvd/error.h"
#include "transport/ring_peers.h"

namespace hvd::backends::ring {
namespace {

size_t total(const std::vector<size_t>& counts) {
  return std::accumulate(counts.begin(), counts.end(), size_t{0});
}

void check_host(const BufferView& buf, const char* what) {
  HVD_CHECK(buf.device.is_cpu(), what, " needs host memory, not device ", buf.device.index);
}

void check_counts(const Transport& t, const std::vector<size_t>& counts, const char* what) {
  HVD_CHECK(counts.size() == static_cast<size_t>(t.size()), what, " has ", counts.size(),
            " counts for ", t.size(), " ranks");
}

// Recursive doubling over the largest power of two p <= n. The first 2*(n-p) ranks pair up
// first (even hands its data to odd, which stands in for both) and get the result back at
// the end, so any n works with 2 extra steps. Partners: ring_peers.h's doubling_partner().
void allreduce_doubling(Transport& t, const PieceList& buf, ReduceOp op) {
  const int n = t.size();
  const int r = t.rank();
  const PieceSpan all = buf.all();
  const int p = largest_power_of_two(n);
  const int extra = n - p;
  if (r < 2 * extra) {
    if (r % 2 == 0) {
      t.send_recv(r + 1, all, kNoPeer, {});
    } else {
      t.send_recv_reduce(kNoPeer, {}, r - 1, all, buf.dtype(), op);
    }
  }
  if (doubling_partner(r, n, 1) >= 0) {  // not sitting out
    // The partner's and our own sum must not be mixed while still being sent: send a copy
    // (which also packs the pieces, so each round sends one).
    std::vector<char> mine(buf.bytes());
    const Piece copy{mine.data(), mine.size()};
    for (int mask = 1; mask < p; mask *= 2) {
      const int peer = doubling_partner(r, n, mask);
      char* at = mine.data();
      for (const Piece& piece : all) {
        std::memcpy(at, piece.data, piece.bytes);
        at += piece.bytes;
      }
      t.send_recv_reduce(peer, PieceSpan{&copy, 1}, peer, all, buf.dtype(), op);
    }
  }
  if (r < 2 * extra) {
    if (r % 2 == 1) {
      t.send_recv(r - 1, all, kNoPeer, {});
    } else {
      t.send_recv(kNoPeer, {}, r + 1, all);
    }
  }
}

// Sends (or receives) the blocks of the ranks whose distance from root is in [va, vb): one
// or two contiguous pieces of buf, as that range may wrap past the last rank.
void move_blocks(Transport& t, bool sending, int peer, BufferView buf, const Blocks& blocks,
                 int root, int va, int vb) {
  const int n = t.size();
  const size_t es = dtype_size(buf.dtype);
  const auto piece = [&](int first, int last) {  // real ranks [first, last), no wrap
    if (first >= last) return;
    const size_t begin = blocks.offset[static_cast<size_t>(first)];
    const size_t end =
        blocks.offset[static_cast<size_t>(last - 1)] + blocks.count[static_cast<size_t>(last - 1)];
    void* at = buf.slice(begin, 0).data;
    if (sending) {
      t.send(peer, at, (end - begin) * es);
    } else {
      t.recv(peer, at, (end - begin) * es);
    }
  };
  const int a = va + root;
  const int b = vb + root;
  piece(std::min(a, n), std::min(b, n));
  piece(std::max(a, n) - n, std::max(b, n) - n);
}

// Binomial scatter: afterwards every rank holds its own block of root's buf.
void scatter_tree(Transport& t, BufferView buf, const Blocks& blocks, int root) {
  const int n = t.size();
  const int r = t.rank();
  const int vrank = (r - root + n) % n;
  int mask = 1;
  while (mask < n) {
    if ((vrank & mask) != 0) {
      move_blocks(t, false, (r - mask + n) % n, buf, blocks, root, vrank,
                  std::min(vrank + mask, n));
      break;
    }
    mask *= 2;
  }
  for (mask /= 2; mask > 0; mask /= 2) {
    if (vrank + mask < n) {
      move_blocks(t, true, (r + mask) % n, buf, blocks, root, vrank + mask,
                  std::min(vrank + 2 * mask, n));
    }
  }
}

void broadcast_tree(Transport& t, BufferView buf, int root) {
  const int n = t.size();
  const int vrank = (t.rank() - root + n) % n;
  int mask = 1;
  while (mask < n) {
    if ((vrank & mask) != 0) {
      t.recv((vrank - mask + root) % n, buf.data, buf.bytes());
      break;
    }
    mask *= 2;
  }
  for (mask /= 2; mask > 0; mask /= 2) {
    if (vrank + mask < n) t.send((vrank + mask + root) % n, buf.data, buf.bytes());
  }
}

}  // namespace

void allreduce(Transport& t, BufferView buf, ReduceOp op, const CollectiveOptions& opts) {
  check_host(buf, "allreduce");
  allreduce(t, PieceList(buf), op, opts);
}

void allreduce(Transport& t, const PieceList& buf, ReduceOp op, const CollectiveOptions& opts) {
  if (t.size() > 1 && buf.count() > 0) {
    if (buf.bytes() <= opts.small_bytes) {
      allreduce_doubling(t, buf, op);
    } else {
      const BlockPieces blocks(buf, even_blocks(buf.count(), t.size()));
      ring_reduce_scatter(t, blocks, op);
      ring_allgather(t, blocks);
    }
  }
  if (op == ReduceOp::kAverage) {
    const size_t es = dtype_size(buf.dtype());
    for (const Piece& p : buf.all()) {
      divide(p.data, p.bytes / es, buf.dtype(), static_cast<size_t>(t.size()));
    }
  }
}

void broadcast(Transport& t, BufferView buf, int root, const CollectiveOptions& opts) {
  check_host(buf, "broadcast");
  HVD_CHECK(root >= 0 && root < t.size(), "broadcast root ", root, " of ", t.size());
  const int n = t.size();
  if (n == 1 || buf.count == 0) return;
  if (n == 2 || buf.bytes() <= opts.small_bytes) {
    broadcast_tree(t, buf, root);
    return;
  }
  // Scatter the blocks from the root down a binomial tree, then ring-allgather them: the root
  // sends each byte once instead of log2(n) times, and only to its tree peers.
  const Blocks blocks = even_blocks(buf.count, n);
  scatter_tree(t, buf, blocks, root);
  ring_allgather(t, BlockPieces(PieceList(buf), blocks));
}

void allgatherv(Transport& t, const BufferView& mine, BufferView out,
                const std::vector<size_t>& counts) {
  check_host(mine, "allgatherv");
  check_host(out, "allgatherv");
  check_counts(t, counts, "allgatherv");
  const auto r = static_cast<size_t>(t.rank());
  HVD_CHECK(mine.count == counts[r] && out.count == total(counts) && mine.dtype == out.dtype,
            "allgatherv: rank ", r, " gives ", mine.count, " of ", counts[r], " elements into ",
            out.count, " of ", total(counts));
  const Blocks blocks = blocks_of(counts);
  void* slot = out.slice(blocks.offset[r], 0).data;
  if (slot != mine.data && mine.count > 0) std::memcpy(slot, mine.data, mine.bytes());
  ring_allgather(t, BlockPieces(PieceList(out), blocks));
}

void reducescatter(Transport& t, const BufferView& in, BufferView out,
                   const std::vector<size_t>& counts, ReduceOp op) {
  check_host(in, "reducescatter");
  check_host(out, "reducescatter");
  check_counts(t, counts, "reducescatter");
  HVD_CHECK(in.count == total(counts) && in.dtype == out.dtype, "reducescatter: input of ",
            in.count, " elements for counts summing to ", total(counts));
  ring_reduce_scatter_to(t, in, out, blocks_of(counts), op);
  if (op == ReduceOp::kAverage) {
    divide(out.data, out.count, out.dtype, static_cast<size_t>(t.size()));
  }
}

void alltoall(Transport& t, const BufferView& send, const std::vector<size_t>& send_counts,
              BufferView recv, const std::vector<size_t>& recv_counts) {
  check_host(send, "alltoall");
  check_host(recv, "alltoall");
  check_counts(t, send_counts, "alltoall send");
  check_counts(t, recv_counts, "alltoall recv");
  HVD_CHECK(send.count == total(send_counts) && recv.count == total(recv_counts) &&
                send.dtype == recv.dtype,
            "alltoall: buffers of ", send.count, " and ", recv.count, " elements for counts ",
            "summing to ", total(send_counts), " and ", total(recv_counts));
  const int r = t.rank();
  const Blocks out = blocks_of(send_counts);
  const Blocks in = blocks_of(recv_counts);
  const auto self = static_cast<size_t>(r);
  HVD_CHECK(out.count[self] == in.count[self], "alltoall: rank ", r, " sends itself ",
            out.count[self], " elements but expects ", in.count[self]);
  const size_t es = dtype_size(send.dtype);
  if (out.count[self] > 0) {
    std::memcpy(recv.slice(in.offset[self], 0).data, send.slice(out.offset[self], 0).data,
                out.count[self] * es);
  }
  // Bruck's algorithm: log2(n) steps to rank +- 2^k instead of n - 1 steps to every rank, so
  // it needs only the tree peers' connections (ring_peers.h).
  bruck_alltoall(t, send, out, recv, in);
}

void barrier(Transport& t) {
  const int n = t.size();
  const int r = t.rank();
  char token = 1;
  char got = 0;
  for (int k = 1; k < n; k *= 2) {
    t.send_recv((r + k) % n, &token, 1, (r - k + n) % n, &got, 1);
  }
}

}  // namespace hvd::backends::ring
