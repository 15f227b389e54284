// SPDX-License-Identifier: Apache-2.0
#include "backends/ring/bruck_alltoall.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "hvd/error.h"
#include "hvd/str_cat.h"

namespace hvd::backends::ring {
namespace {

struct Parcel {
  uint32_t src = 0;
  uint32_t dst = 0;
  std::string bytes;
};

struct Header {
  uint32_t src;
  uint32_t dst;
  uint64_t bytes;
};

}  // namespace

void bruck_alltoall(Transport& t, const BufferView& send, const Blocks& out, BufferView recv,
                    const Blocks& in) {
  const int n = t.size();
  const int r = t.rank();
  const size_t es = dtype_size(send.dtype);
  std::vector<Parcel> held;
  for (int d = 0; d < n; ++d) {
    const auto b = static_cast<size_t>(d);
    if (d == r || out.count[b] == 0) continue;
    const char* at = static_cast<const char*>(send.slice(out.offset[b], 0).data);
    held.push_back(Parcel{static_cast<uint32_t>(r), static_cast<uint32_t>(d),
                          std::string(at, out.count[b] * es)});
  }
  for (int k = 1; k < n; k *= 2) {
    const int to = (r + k) % n;
    const int from = (r - k + n) % n;
    std::string frame;
    std::vector<Parcel> keep;
    for (Parcel& p : held) {
      if (((static_cast<int>(p.dst) - r + n) % n & k) == 0) {
        keep.push_back(std::move(p));
        continue;
      }
      const Header h{p.src, p.dst, p.bytes.size()};
      frame.append(reinterpret_cast<const char*>(&h), sizeof(h)).append(p.bytes);
    }
    held = std::move(keep);
    uint64_t out_len = frame.size();
    uint64_t in_len = 0;
    t.send_recv(to, &out_len, sizeof(out_len), from, &in_len, sizeof(in_len));
    std::string got(in_len, '\0');
    t.send_recv(to, frame.data(), frame.size(), from, got.data(), got.size());
    for (size_t at = 0; at < got.size();) {
      Header h{};
      if (got.size() - at < sizeof(h)) {
        throw BackendError(
            str_cat("ring alltoall: rank ", r, ": a truncated frame from rank ", from));
      }
      std::memcpy(&h, got.data() + at, sizeof(h));
      at += sizeof(h);
      if (h.bytes > got.size() - at || h.src >= static_cast<uint32_t>(n) ||
          h.dst >= static_cast<uint32_t>(n)) {
        throw BackendError(str_cat("ring alltoall: rank ", r, ": a malformed frame from rank ",
                                   from, " (block ", h.src, " -> ", h.dst, ", ", h.bytes,
                                   " bytes)"));
      }
      if (h.dst == static_cast<uint32_t>(r)) {
        const auto b = static_cast<size_t>(h.src);
        HVD_CHECK(h.bytes == in.count[b] * es, "alltoall: rank ", h.src, " sends ", h.bytes,
                  " bytes to rank ", r, ", which expects ", in.count[b] * es);
        std::memcpy(recv.slice(in.offset[b], 0).data, got.data() + at, h.bytes);
      } else {
        held.push_back(Parcel{h.src, h.dst, got.substr(at, h.bytes)});
      }
      at += h.bytes;
    }
  }
  HVD_CHECK(held.empty(), "alltoall: rank ", r, " still holds ", held.size(), " blocks");
}

}  // namespace hvd::backends::ring
