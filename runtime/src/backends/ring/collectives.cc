// SPDX-License-Identifier: Apache-2.0
#include "backends/ring/collectives.h"

#include <cstring>
#include <numeric>

#include "backends/ring/ring_phases.h"
#include "common/reduce_kernels.h"
#include "hvd/error.h"

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
// the end, so any n works with 2 extra steps.
void allreduce_doubling(Transport& t, BufferView buf, ReduceOp op) {
  const int n = t.size();
  const int r = t.rank();
  const size_t bytes = buf.bytes();
  int p = 1;
  while (p * 2 <= n) p *= 2;
  const int extra = n - p;
  int vrank = r - extra;  // rank among the p, or -1 for a rank that sits out
  if (r < 2 * extra) {
    if (r % 2 == 0) {
      t.send(r + 1, buf.data, bytes);
      vrank = -1;
    } else {
      t.send_recv_reduce(kNoPeer, nullptr, 0, r - 1, buf.data, buf.count, buf.dtype, op);
      vrank = r / 2;
    }
  }
  if (vrank >= 0) {
    // The partner's and our own sum must not be mixed while still being sent: send a copy.
    std::vector<char> mine(bytes);
    for (int mask = 1; mask < p; mask *= 2) {
      const int vpeer = vrank ^ mask;
      const int peer = vpeer < extra ? 2 * vpeer + 1 : vpeer + extra;
      std::memcpy(mine.data(), buf.data, bytes);
      t.send_recv_reduce(peer, mine.data(), bytes, peer, buf.data, buf.count, buf.dtype, op);
    }
  }
  if (r < 2 * extra) {
    if (r % 2 == 1) {
      t.send(r - 1, buf.data, bytes);
    } else {
      t.recv(r + 1, buf.data, bytes);
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
  if (t.size() > 1 && buf.count > 0) {
    if (buf.bytes() <= opts.small_bytes) {
      allreduce_doubling(t, buf, op);
    } else {
      const Blocks blocks = even_blocks(buf.count, t.size());
      ring_reduce_scatter(t, buf, blocks, op);
      ring_allgather(t, buf, blocks);
    }
  }
  if (op == ReduceOp::kAverage) {
    divide(buf.data, buf.count, buf.dtype, static_cast<size_t>(t.size()));
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
  // Scatter the blocks from the root, then ring-allgather them: the root sends each byte
  // once instead of log2(n) times.
  const Blocks blocks = even_blocks(buf.count, n);
  const size_t es = dtype_size(buf.dtype);
  if (t.rank() == root) {
    for (int r = 0; r < n; ++r) {
      const auto b = static_cast<size_t>(r);
      if (r != root) t.send(r, buf.slice(blocks.offset[b], 0).data, blocks.count[b] * es);
    }
  } else {
    const auto b = static_cast<size_t>(t.rank());
    t.recv(root, buf.slice(blocks.offset[b], 0).data, blocks.count[b] * es);
  }
  ring_allgather(t, buf, blocks);
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
  ring_allgather(t, out, blocks);
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
  const int n = t.size();
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
  // Pairwise exchange: in step s every rank sends to r+s and receives from r-s.
  for (int s = 1; s < n; ++s) {
    const auto to = static_cast<size_t>((r + s) % n);
    const auto from = static_cast<size_t>((r - s + n) % n);
    t.send_recv(static_cast<int>(to), send.slice(out.offset[to], 0).data, out.count[to] * es,
                static_cast<int>(from), recv.slice(in.offset[from], 0).data, in.count[from] * es);
  }
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
