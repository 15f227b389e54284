// SPDX-License-Identifier: Apache-2.0
#pragma once
// Channel: the few collectives negotiation needs, on small messages. Implemented over the
// built-in ring's transport, over MPI, and in memory for tests. Called only from the
// background thread; every rank calls the same operations in the same order.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "hvd/tensor.h"

namespace hvd::control {

/// How a vote's words past the AND part combine: `count` elements of `dtype` at their start,
/// reduced with `op` (kAverage as kSum). count 0: this rank carries no tensor and leaves those
/// words as they come; what they then hold on any rank is not a result (control/vote_fold.h
/// says how the ranks tell).
struct VoteFold {
  size_t count = 0;
  DataType dtype = DataType::kUInt8;
  ReduceOp op = ReduceOp::kSum;
};

class Channel {
 public:
  virtual ~Channel() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  /// Every rank's bytes, in rank order, at `root`; an empty vector on the other ranks.
  virtual std::vector<std::string> gather(const std::string& mine, int root) = 0;
  /// `root`'s bytes on every rank (`bytes` is ignored elsewhere).
  virtual std::string broadcast(const std::string& bytes, int root) = 0;
  /// The cache vote (controller.h), in place over all ranks: bitwise AND of words[0, and_words)
  /// and, in the words after them, `fold` (a small tensor's data riding on the vote). Every
  /// rank passes the same words.size() and and_words.
  virtual void vote(std::vector<uint64_t>& words, size_t and_words, const VoteFold& fold) = 0;
};

}  // namespace hvd::control
