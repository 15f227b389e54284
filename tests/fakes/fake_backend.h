// SPDX-License-Identifier: Apache-2.0
#pragma once
// FakeBackend: collectives for N ranks running as threads, through a FakeChannelHub rendezvous
// and the real reduce kernels. Lets the runtime's loop, executor and fusion be tested without
// sockets; the real backends have their own tests.

#include <cstring>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "common/reduce_kernels.h"
#include "fakes/fake_channel.h"

namespace hvd::test {

class FakeBackend : public backends::Backend {
 public:
  FakeBackend(FakeChannelHub& hub, int rank) : hub_(hub), rank_(rank) {}
  std::string_view name() const override { return "fake"; }
  bool supports(Device device, DataType, ReduceOp) const override { return device.is_cpu(); }

  void allreduce(BufferView buf, ReduceOp op) override {
    const auto all = everyone(bytes_of(buf));
    std::memcpy(buf.data, all[0].data(), buf.bytes());
    for (size_t r = 1; r < all.size(); ++r)
      reduce_into(buf.data, all[r].data(), buf.count, buf.dtype, op);
  }
  void broadcast(BufferView buf, int root) override {
    const auto all = everyone(bytes_of(buf));
    std::memcpy(buf.data, all[static_cast<size_t>(root)].data(), buf.bytes());
  }
  void allgatherv(BufferView in, BufferView out, const std::vector<size_t>&) override {
    std::string joined;
    for (const std::string& part : everyone(bytes_of(in))) joined += part;
    std::memcpy(out.data, joined.data(), out.bytes());
  }
  void reducescatter(BufferView in, BufferView out, const std::vector<size_t>& counts,
                     ReduceOp op) override {
    allreduce(in, op);
    size_t first = 0;
    for (int r = 0; r < rank_; ++r) first += counts[static_cast<size_t>(r)];
    std::memcpy(out.data, in.slice(first, out.count).data, out.bytes());
  }
  void alltoall(BufferView in, const std::vector<size_t>& send, BufferView out,
                const std::vector<size_t>& recv) override {
    const auto all = everyone(bytes_of(in));
    const size_t elem = dtype_size(in.dtype);
    size_t at = 0;
    for (size_t r = 0; r < all.size(); ++r) {
      size_t offset = 0;  // where rank r's block for me starts in its input
      for (int q = 0; q < rank_; ++q) offset += send[static_cast<size_t>(q)];
      std::memcpy(static_cast<char*>(out.data) + at * elem, all[r].data() + offset * elem,
                  recv[r] * elem);
      at += recv[r];
    }
  }
  void barrier() override { everyone(""); }

 private:
  static std::string bytes_of(const BufferView& b) {
    return std::string(static_cast<const char*>(b.data), b.bytes());
  }
  std::vector<std::string> everyone(std::string mine) {
    return hub_.exchange(rank_, std::move(mine),
                         [](const std::vector<std::string>& s) { return s; });
  }
  FakeChannelHub& hub_;
  int rank_;
};

}  // namespace hvd::test
