// SPDX-License-Identifier: Apache-2.0
#pragma once
// TransportChannel: the control Channel over a ring Transport (TCP or shared memory). Lives in
// core/ because it joins the two halves that must not see each other: control/ and backends/.

#include <memory>

#include "backends/ring/transport.h"
#include "control/channel.h"

namespace hvd::core {

class TransportChannel : public control::Channel {
 public:
  /// Owns its transport (a mesh of its own, apart from the tensor traffic's); used from the
  /// background thread only.
  explicit TransportChannel(std::unique_ptr<backends::ring::Transport> transport)
      : owned_(std::move(transport)), t_(*owned_) {}
  int rank() const override { return t_.rank(); }
  int size() const override { return t_.size(); }
  std::vector<std::string> gather(const std::string& mine, int root) override;
  std::string broadcast(const std::string& bytes, int root) override;
  /// One latency-optimised allreduce (kMin over 0/1 bytes is AND): the steady-state cycle.
  void bit_and(std::vector<uint8_t>& bits) override;

 private:
  std::unique_ptr<backends::ring::Transport> owned_;
  backends::ring::Transport& t_;
};

}  // namespace hvd::core
