// SPDX-License-Identifier: Apache-2.0
// The cache vote's words: what an AND over ranks makes of hits, invalid bits, flags and the
// fold ids (every rank must read the same verdict from the same AND-ed words).
#include "control/cache_vote.h"

#include <doctest/doctest.h>

#include <cstring>
#include <optional>
#include <vector>

namespace control = hvd::control;
using control::CacheVote;

namespace {

// The AND part of every rank's words, as Channel::vote() leaves it on each rank.
void and_over(std::vector<CacheVote>& ranks) {
  std::vector<uint64_t> all = ranks[0].words();
  for (CacheVote& v : ranks) {
    for (size_t i = 0; i < v.and_words(); ++i) all[i] &= v.words()[i];
  }
  for (CacheVote& v : ranks) std::memcpy(v.words().data(), all.data(), v.and_words() * 8);
}

std::vector<CacheVote> votes(int ranks, size_t span, size_t data_bytes) {
  std::vector<CacheVote> v(static_cast<size_t>(ranks));
  for (CacheVote& one : v) one.reset(span, data_bytes);
  return v;
}

}  // namespace

TEST_CASE("cache vote: a few words for the bits in use, and the data part after them") {
  CacheVote v;
  v.reset(0, 0);
  CHECK(v.words().size() == 3);  // flags and the two fold ids
  v.reset(64, 0);
  CHECK(v.words().size() == 5);
  v.reset(65, 128);
  CHECK(v.and_words() == 7);
  CHECK(v.words().size() == 7 + 16);
  CHECK(v.data_bytes() == 128);
}

TEST_CASE("cache vote: hits survive where every rank has them, an invalid bit from any rank") {
  std::vector<CacheVote> v = votes(3, 130, 0);
  for (CacheVote& one : v) {
    one.set_hit(3);
    one.set_hit(129);
  }
  v[0].set_hit(64);
  v[1].set_invalid(70);
  v[2].set_invalid(2);
  and_over(v);
  for (const CacheVote& one : v) {
    CHECK(one.hit(3));
    CHECK(one.hit(129));
    CHECK_FALSE(one.hit(64));
    CHECK(one.invalid_bits() == std::vector<size_t>{2, 70});
  }
}

TEST_CASE("cache vote: a flag survives only when every rank sets it") {
  std::vector<CacheVote> v = votes(2, 1, 0);
  for (CacheVote& one : v) {
    one.set_flag(CacheVote::kNoUncached, true);
    one.set_flag(CacheVote::kNoShutdown, true);
  }
  v[1].set_flag(CacheVote::kNoShutdown, false);
  and_over(v);
  CHECK(v[0].flag(CacheVote::kNoUncached));
  CHECK_FALSE(v[0].flag(CacheVote::kNoShutdown));
  CHECK_FALSE(v[0].flag(CacheVote::kJoined));
}

namespace {

// The verdict every rank reads after the AND, when rank r folds bit folds[r] (-1: none).
std::vector<std::optional<size_t>> verdicts(const std::vector<int>& folds) {
  std::vector<CacheVote> v = votes(static_cast<int>(folds.size()), 100, 8);
  for (size_t r = 0; r < folds.size(); ++r) {
    if (folds[r] >= 0) v[r].set_fold(static_cast<size_t>(folds[r]));
  }
  and_over(v);
  std::vector<std::optional<size_t>> out;
  for (const CacheVote& one : v) out.push_back(one.folded());
  return out;
}

using Verdicts = std::vector<std::optional<size_t>>;

}  // namespace

TEST_CASE("cache vote: folded only when every rank folded the same tensor") {
  for (size_t ranks = 1; ranks <= 5; ++ranks) {
    CAPTURE(ranks);
    CHECK(verdicts(std::vector<int>(ranks, 77)) == Verdicts(ranks, size_t{77}));
    CHECK(verdicts(std::vector<int>(ranks, 0)) == Verdicts(ranks, size_t{0}));
    CHECK(verdicts(std::vector<int>(ranks, -1)) == Verdicts(ranks, std::nullopt));
    std::vector<int> one_without(ranks, 5);
    one_without[ranks / 2] = -1;
    CHECK(verdicts(one_without) == Verdicts(ranks, std::nullopt));
    // Ids 3 and 7: the AND of the ids alone would still read 3.
    std::vector<int> one_other(ranks, 2);
    one_other.back() = 6;
    CHECK(verdicts(one_other) ==
          (ranks == 1 ? Verdicts(1, size_t{6}) : Verdicts(ranks, std::nullopt)));
  }
}
