// SPDX-License-Identifier: Apache-2.0
#include "control/cache_vote.h"

#include <cstring>

#include "hvd/error.h"

namespace hvd::control {

void CacheVote::reset(size_t span, size_t data_bytes) {
  HVD_CHECK(data_bytes % sizeof(uint64_t) == 0, "vote data of ", data_bytes, " bytes");
  span_ = span;
  hit_words_ = (span + 63) / 64;
  // Every cycle, so by memset rather than assign(): [hits | NOT invalid | flags | fold id |
  // NOT fold id | data].
  words_.resize(and_words() + data_bytes / sizeof(uint64_t));
  uint64_t* w = words_.data();
  std::memset(w, 0, hit_words_ * sizeof(uint64_t));
  // NOT invalid: all ones (bits past the span too, so that they never read as invalid).
  std::memset(w + hit_words_, 0xff, hit_words_ * sizeof(uint64_t));
  w[flags_at()] = 0;
  w[flags_at() + 1] = 0;             // fold id 0: none
  w[flags_at() + 2] = ~uint64_t{0};  // NOT fold id 0
  std::memset(w + and_words(), 0, data_bytes);
}

std::vector<size_t> CacheVote::invalid_bits() const {
  std::vector<size_t> bits;
  for (size_t i = 0; i < hit_words_; ++i) {
    for (uint64_t cleared = ~words_[hit_words_ + i]; cleared != 0; cleared &= cleared - 1) {
      const size_t bit = i * 64 + static_cast<size_t>(__builtin_ctzll(cleared));
      if (bit < span_) bits.push_back(bit);
    }
  }
  return bits;
}

void CacheVote::set_flag(Flag flag, bool on) {
  if (on) {
    words_[flags_at()] |= flag;
  } else {
    words_[flags_at()] &= ~uint64_t{flag};
  }
}

void CacheVote::set_fold(size_t bit) {
  HVD_CHECK(bit < span_, "fold of bit ", bit, " past the span ", span_);
  words_[flags_at() + 1] = bit + 1;
  words_[flags_at() + 2] = ~uint64_t{bit + 1};
}

std::optional<size_t> CacheVote::folded() const {
  const uint64_t all = words_[flags_at() + 1];   // AND of the ids
  const uint64_t any = ~words_[flags_at() + 2];  // OR of the ids
  if (all != any || all == 0) return std::nullopt;
  return static_cast<size_t>(all - 1);
}

}  // namespace hvd::control
