// SPDX-License-Identifier: Apache-2.0
#pragma once
// Channel: the few collectives negotiation needs, on small messages. Implemented over the
// built-in ring's transport, over MPI, and in memory for tests. Called only from the
// background thread; every rank calls the same operations in the same order.

#include <cstdint>
#include <string>
#include <vector>

namespace hvd::control {

class Channel {
 public:
  virtual ~Channel() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  /// Every rank's bytes, in rank order, at `root`; an empty vector on the other ranks.
  virtual std::vector<std::string> gather(const std::string& mine, int root) = 0;
  /// `root`'s bytes on every rank (`bytes` is ignored elsewhere).
  virtual std::string broadcast(const std::string& bytes, int root) = 0;
  /// Element-wise AND over all ranks of equal-length vectors of 0/1 bytes, in place.
  virtual void bit_and(std::vector<uint8_t>& bits) = 0;
};

}  // namespace hvd::control
