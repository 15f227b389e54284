// SPDX-License-Identifier: Apache-2.0
#pragma once
// JoinZeros: what a joined rank (hvd.join, control/join_rules.h) runs a response with. The
// tensors it submitted itself come from the queue; for each one it never submitted, a host
// buffer of zeros of the response's size stands in, reduced in place with the others and then
// dropped, with a handle nobody waits on.

#include <deque>
#include <vector>

#include "control/message.h"
#include "core/tensor_queue.h"

namespace hvd::core {

class JoinZeros {
 public:
  /// The entries of `response`'s names, in order: this rank's own where queued, zeros where
  /// not. The zero buffers live until release().
  std::vector<TensorEntry> entries_for(const control::Response& response, TensorQueue& queue);
  /// Frees the zero buffers; call once their responses ran.
  void release() { buffers_.clear(); }

 private:
  std::deque<std::vector<char>> buffers_;  // a deque: growing it keeps earlier buffers in place
};

}  // namespace hvd::core
