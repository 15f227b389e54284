// SPDX-License-Identifier: Apache-2.0
#include "core/transport_channel.h"

#include <cstdint>

#include "backends/ring/collectives.h"

namespace hvd::core {

// Control messages are small and rare next to tensor traffic: a length, then the bytes,
// rank by rank to or from the root is simple and enough.
std::vector<std::string> TransportChannel::gather(const std::string& mine, int root) {
  if (t_.rank() != root) {
    const uint64_t n = mine.size();
    t_.send(root, &n, sizeof(n));
    t_.send(root, mine.data(), mine.size());
    return {};
  }
  std::vector<std::string> all(static_cast<size_t>(t_.size()));
  for (int r = 0; r < t_.size(); ++r) {
    if (r == root) {
      all[static_cast<size_t>(r)] = mine;
      continue;
    }
    uint64_t n = 0;
    t_.recv(r, &n, sizeof(n));
    all[static_cast<size_t>(r)].resize(n);
    t_.recv(r, all[static_cast<size_t>(r)].data(), n);
  }
  return all;
}

std::string TransportChannel::broadcast(const std::string& bytes, int root) {
  uint64_t n = bytes.size();
  BufferView length{&n, 1, DataType::kInt64, {}};
  backends::ring::broadcast(t_, length, root);
  std::string out = t_.rank() == root ? bytes : std::string(n, '\0');
  backends::ring::broadcast(t_, BufferView{out.data(), out.size(), DataType::kUInt8, {}}, root);
  return out;
}

void TransportChannel::bit_and(std::vector<uint8_t>& bits) {
  backends::ring::allreduce(t_, BufferView{bits.data(), bits.size(), DataType::kUInt8, {}},
                            ReduceOp::kMin);
}

}  // namespace hvd::core
