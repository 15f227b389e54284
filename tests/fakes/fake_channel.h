// SPDX-License-Identifier: Apache-2.0
#pragma once
// FakeChannel: a control Channel for N ranks running as threads of one process. Each
// collective is a rendezvous of all N threads on shared state, so tests exercise the real
// negotiation logic without sockets. Counts the operations so tests can tell a cycle served
// from the response cache (one vote) from a full negotiation (gather + broadcast).

#include <condition_variable>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/reduce_kernels.h"
#include "control/channel.h"

namespace hvd::test {

class FakeChannelHub {
 public:
  explicit FakeChannelHub(int size) : size_(size), slots_(static_cast<size_t>(size)) {}

  // One collective: every rank deposits its value; once all have, `combine` runs once on the
  // full set and each rank gets its view of the result.
  template <typename Combine>
  std::vector<std::string> exchange(int rank, std::string mine, Combine combine) {
    std::unique_lock<std::mutex> lock(mutex_);
    const long round = round_;
    slots_[static_cast<size_t>(rank)] = std::move(mine);
    if (++arrived_ == size_) {
      result_ = combine(slots_);
      arrived_ = 0;
      ++round_;
      cv_.notify_all();
    } else {
      cv_.wait(lock, [&] { return round_ != round; });
    }
    return result_;
  }
  int size() const { return size_; }
  long gathers = 0, broadcasts = 0, votes = 0;  // counted once per collective, by rank 0

 private:
  int size_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::vector<std::string> slots_, result_;
  int arrived_ = 0;
  long round_ = 0;
};

class FakeChannel : public control::Channel {
 public:
  FakeChannel(FakeChannelHub& hub, int rank) : hub_(hub), rank_(rank) {}
  int rank() const override { return rank_; }
  int size() const override { return hub_.size(); }

  std::vector<std::string> gather(const std::string& mine, int root) override {
    if (rank_ == 0) ++hub_.gathers;
    auto all = hub_.exchange(rank_, mine, [](const std::vector<std::string>& s) { return s; });
    return rank_ == root ? all : std::vector<std::string>{};
  }
  std::string broadcast(const std::string& bytes, int root) override {
    if (rank_ == 0) ++hub_.broadcasts;
    return hub_.exchange(rank_, bytes, [root](const std::vector<std::string>& s) {
      return std::vector<std::string>{s[static_cast<size_t>(root)]};
    })[0];
  }
  // AND over the first and_words; the rest reduced in rank order when every rank folded a
  // tensor of the same kind (what the words hold otherwise is no result, as on a real channel).
  void vote(std::vector<uint64_t>& words, size_t and_words,
            const control::VoteFold& fold) override {
    if (rank_ == 0) ++hub_.votes;
    const std::string spec = std::to_string(fold.count) + "/" +
                             std::to_string(static_cast<int>(fold.dtype)) + "/" +
                             std::to_string(static_cast<int>(fold.op)) + ";";
    std::string mine = spec;
    mine.append(reinterpret_cast<const char*>(words.data()), words.size() * sizeof(uint64_t));
    const auto result = hub_.exchange(
        rank_, std::move(mine), [&](const std::vector<std::string>& all) {
          std::vector<uint64_t> out = words;
          std::vector<uint64_t> theirs(words.size());
          bool same_fold = fold.count > 0;
          for (size_t r = 0; r < all.size(); ++r) {
            const size_t at = all[r].find(';') + 1;
            std::memcpy(theirs.data(), all[r].data() + at, theirs.size() * sizeof(uint64_t));
            same_fold = same_fold && all[r].compare(0, at, spec) == 0;
            if (r == 0) {
              out = theirs;
              continue;
            }
            for (size_t i = 0; i < and_words; ++i) out[i] &= theirs[i];
            if (same_fold) {
              reduce_into(out.data() + and_words, theirs.data() + and_words, fold.count,
                          fold.dtype, fold.op);
            }
          }
          return std::vector<std::string>{
              std::string(reinterpret_cast<const char*>(out.data()), out.size() * sizeof(uint64_t))};
        });
    std::memcpy(words.data(), result[0].data(), words.size() * sizeof(uint64_t));
  }

 private:
  FakeChannelHub& hub_;
  int rank_;
};

}  // namespace hvd::test
