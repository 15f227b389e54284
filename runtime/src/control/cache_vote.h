// SPDX-License-Identifier: Apache-2.0
#pragma once
// CacheVote: the words of one cycle's cache vote (controller.h), AND-ed over all ranks by
// Channel::vote(). For a cache whose bits in use end below `span` (the same on every rank, as
// the caches are), in 64-bit words:
//
//   [hit bits | NOT invalid bits | flags | fold id | NOT fold id] [folded tensor's data]
//    <------------------------- AND-ed ------------------------->  <-- reduced by op -->
//
// so a steady-state vote is a few words, not one byte per cache entry. The data part (present
// whenever the cache is not empty) carries one small cached allreduce of this rank, when that
// is all this rank has ready (vote_fold.h): the "fold". A rank's fold id is its tensor's bit
// + 1, or 0; after the AND, the fold id words hold AND(ids) and NOT OR(ids), which agree
// exactly when every rank folded the same tensor, so every rank reads the same verdict.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace hvd::control {

class CacheVote {
 public:
  enum Flag : uint64_t {
    kNoUncached = 1,  // after the vote: no rank has uncached requests
    kNoShutdown = 2,  // no rank wants to shut down
    kJoined = 4,      // every rank has joined (hvd.join)
    kNoSetWork = 8,   // no rank has work in flight in another process set
  };

  /// Starts a vote: no hits, nothing invalid, no flags, no fold. `data_bytes` (a multiple of 8)
  /// of data part, zeroed.
  void reset(size_t span, size_t data_bytes);

  void set_hit(size_t bit) { words_[bit / 64] |= mask(bit); }
  bool hit(size_t bit) const { return (words_[bit / 64] & mask(bit)) != 0; }
  void set_invalid(size_t bit) { words_[hit_words_ + bit / 64] &= ~mask(bit); }
  /// The bits below the span some rank found invalid, ascending (after the vote).
  std::vector<size_t> invalid_bits() const;
  void set_flag(Flag flag, bool on);
  bool flag(Flag flag) const { return (words_[flags_at()] & flag) != 0; }

  /// Where this rank's folded data goes: data_bytes of room.
  void* fold_data() { return words_.data() + and_words(); }
  const void* fold_data() const { return words_.data() + and_words(); }
  size_t data_bytes() const { return (words_.size() - and_words()) * sizeof(uint64_t); }
  /// This rank folds the tensor of cache bit `bit` (its data is at fold_data()).
  void set_fold(size_t bit);
  /// After the vote: the bit whose tensor every rank folded, if they all folded the same one.
  std::optional<size_t> folded() const;

  /// What Channel::vote() combines.
  std::vector<uint64_t>& words() { return words_; }
  size_t and_words() const { return flags_at() + 3; }

 private:
  static uint64_t mask(size_t bit) { return uint64_t{1} << (bit % 64); }
  size_t flags_at() const { return 2 * hit_words_; }

  size_t span_ = 0;
  size_t hit_words_ = 0;
  std::vector<uint64_t> words_;  // reused every cycle
};

}  // namespace hvd::control
