// SPDX-License-Identifier: Apache-2.0
#pragma once
// TransportChannel: the control Channel over a ring Transport (TCP or shared memory). Lives in
// core/ because it joins the two halves that must not see each other: control/ and backends/.
//
// gather() goes up a binomial tree and broadcast() down one (the ring's tree broadcast), so no
// rank talks to more than O(log n) others. Every length a peer announces is checked against
// the bounds below before anything is allocated: a corrupt or hostile length is a BackendError
// naming the rank, never a bad_alloc or an overrun.

#include <cstdint>
#include <memory>
#include <vector>

#include "control/channel.h"
#include "transport/transport.h"

namespace hvd::core {

/// The most one rank's gathered message may hold. Negotiation messages are names and shapes of
/// the tensors a rank has ready: kilobytes, megabytes for thousands of tensors at once.
inline constexpr uint64_t kMaxControlMessageBytes = uint64_t{64} << 20;
/// The most a whole gather (all ranks' messages together) or a broadcast may hold.
inline constexpr uint64_t kMaxControlTotalBytes = uint64_t{1} << 30;

class TransportChannel : public control::Channel {
 public:
  /// Owns its transport (connections of its own, apart from the tensor traffic's); used from
  /// the background thread only.
  explicit TransportChannel(std::unique_ptr<backends::ring::Transport> transport)
      : owned_(std::move(transport)), t_(*owned_) {}
  int rank() const override { return t_.rank(); }
  int size() const override { return t_.size(); }
  /// Throws BackendError when a message passes the bounds above.
  std::vector<std::string> gather(const std::string& mine, int root) override;
  /// Throws BackendError when root announces more than kMaxControlTotalBytes.
  std::string broadcast(const std::string& bytes, int root) override;
  /// Recursive doubling, as the ring's small allreduce (so a folded tensor's result is the one
  /// the ring backend would give, bit for bit), combining the two parts of each message here.
  void vote(std::vector<uint64_t>& words, size_t and_words,
            const control::VoteFold& fold) override;

 private:
  std::unique_ptr<backends::ring::Transport> owned_;
  backends::ring::Transport& t_;
  std::vector<uint64_t> received_;  // vote()'s peer words, kept to reuse their memory
};

}  // namespace hvd::core
