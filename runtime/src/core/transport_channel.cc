// SPDX-License-Identifier: Apache-2.0
#include "core/transport_channel.h"

#include <algorithm>
#include <cstdint>

#include "backends/ring/collectives.h"
#include "common/reduce_kernels.h"
#include "hvd/error.h"
#include "hvd/str_cat.h"
#include "transport/ring_peers.h"

namespace hvd::core {
namespace {

// The gather goes up a binomial tree rooted at `root`: the rank at distance v from the root
// (v = rank - root mod n) first collects the subtrees of v + 1, v + 2, v + 4, ... below it
// (the ranks at distance [v, v + 2^k)), then sends what it holds, in distance order, to
// v - lowbit(v). A subtree's message is its entries' lengths (one u64 per rank, so the count
// is known before anything is allocated), then their bytes. Peers are rank +- 2^k, which the
// TCP transport connects (ring_peers.h).
int subtree_size(int v, int n) {
  if (v == 0) return n;
  const int low = v & -v;
  return std::min(low, n - v);
}

}  // namespace

std::vector<std::string> TransportChannel::gather(const std::string& mine, int root) {
  const int n = t_.size();
  const int r = t_.rank();
  const int v = (r - root + n) % n;
  if (mine.size() > kMaxControlMessageBytes) {
    throw BackendError(str_cat("control channel: rank ", r, " has a message of ", mine.size(),
                               " bytes, above the bound of ", kMaxControlMessageBytes));
  }
  std::vector<std::string> held{mine};  // distances v, v + 1, ... in order
  uint64_t held_bytes = mine.size();
  for (int mask = 1; mask < n && (v & mask) == 0; mask *= 2) {
    if (v + mask >= n) continue;
    const int child = (r + mask) % n;
    const int count = subtree_size(v + mask, n);
    std::vector<uint64_t> lengths(static_cast<size_t>(count));
    t_.recv(child, lengths.data(), lengths.size() * sizeof(uint64_t));
    uint64_t total = 0;
    for (size_t i = 0; i < lengths.size(); ++i) {
      // A length past the bounds is a corrupt stream or a bug, never a message to allocate.
      if (lengths[i] > kMaxControlMessageBytes ||
          held_bytes + total + lengths[i] > kMaxControlTotalBytes) {
        throw BackendError(str_cat("control channel: rank ", child, " announced ", lengths[i],
                                   " bytes for the message of rank ",
                                   (child + static_cast<int>(i)) % n,
                                   " (bounds: ", kMaxControlMessageBytes, " per rank, ",
                                   kMaxControlTotalBytes, " per gather)"));
      }
      total += lengths[i];
    }
    std::string bytes(total, '\0');
    t_.recv(child, bytes.data(), bytes.size());
    size_t at = 0;
    for (const uint64_t len : lengths) {
      held.push_back(bytes.substr(at, len));
      at += len;
    }
    held_bytes += total;
  }
  if (v != 0) {
    const int parent = (r - (v & -v) + n) % n;
    std::vector<uint64_t> lengths;
    std::string bytes;
    for (const std::string& s : held) {
      lengths.push_back(s.size());
      bytes += s;
    }
    t_.send(parent, lengths.data(), lengths.size() * sizeof(uint64_t));
    t_.send(parent, bytes.data(), bytes.size());
    return {};
  }
  std::vector<std::string> all(static_cast<size_t>(n));
  for (int d = 0; d < n; ++d) {
    all[static_cast<size_t>((d + root) % n)] = std::move(held[static_cast<size_t>(d)]);
  }
  return all;
}

std::string TransportChannel::broadcast(const std::string& bytes, int root) {
  uint64_t n = bytes.size();
  BufferView length{&n, 1, DataType::kInt64, {}};
  backends::ring::broadcast(t_, length, root);
  if (n > kMaxControlTotalBytes) {
    throw BackendError(str_cat("control channel: rank ", t_.rank(), ": rank ", root,
                               " announced a broadcast of ", n, " bytes, above the bound of ",
                               kMaxControlTotalBytes));
  }
  std::string out = t_.rank() == root ? bytes : std::string(n, '\0');
  backends::ring::broadcast(t_, BufferView{out.data(), out.size(), DataType::kUInt8, {}}, root);
  return out;
}

void TransportChannel::vote(std::vector<uint64_t>& words, size_t and_words,
                            const control::VoteFold& fold) {
  const int n = t_.size();
  const int r = t_.rank();
  HVD_CHECK(and_words <= words.size() &&
                fold.count * dtype_size(fold.dtype) <= (words.size() - and_words) * 8,
            "vote of ", words.size(), " words: ", and_words, " to AND and ", fold.count,
            " elements to reduce");
  if (n == 1 || words.empty()) return;
  const size_t bytes = words.size() * sizeof(uint64_t);
  received_.resize(words.size());
  // words = words op received, the order in which the ring's allreduce_doubling() reduces.
  const auto combine = [&] {
    for (size_t i = 0; i < and_words; ++i) words[i] &= received_[i];
    if (fold.count > 0) {
      reduce_into(words.data() + and_words, received_.data() + and_words, fold.count, fold.dtype,
                  fold.op);
    }
  };
  // The ranks past the largest power of two p pair up first (the even one hands its words to
  // the odd one) and get the result back last; the others exchange with partners 1, 2, 4, ...
  const int p = backends::ring::largest_power_of_two(n);
  const int extra = n - p;
  if (r < 2 * extra && r % 2 == 0) {
    t_.send(r + 1, words.data(), bytes);
    t_.recv(r + 1, words.data(), bytes);
    return;
  }
  if (r < 2 * extra) {
    t_.recv(r - 1, received_.data(), bytes);
    combine();
  }
  for (int mask = 1; mask < p; mask *= 2) {
    const int peer = backends::ring::doubling_partner(r, n, mask);
    t_.send_recv(peer, words.data(), bytes, peer, received_.data(), bytes);
    combine();
  }
  if (r < 2 * extra) t_.send(r - 1, words.data(), bytes);
}

}  // namespace hvd::core
