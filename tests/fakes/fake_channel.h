// SPDX-License-Identifier: Apache-2.0
#pragma once
// FakeChannel: a control Channel for N ranks running as threads of one process. Each
// collective is a rendezvous of all N threads on shared state, so tests exercise the real
// negotiation logic without sockets. Counts the operations so tests can tell a cycle served
// from the response cache (one bit_and) from a full negotiation (gather + broadcast).

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

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
  long gathers = 0, broadcasts = 0, bit_ands = 0;  // counted once per collective, by rank 0

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
  void bit_and(std::vector<uint8_t>& bits) override {
    if (rank_ == 0) ++hub_.bit_ands;
    const auto result = hub_.exchange(rank_, std::string(bits.begin(), bits.end()),
                                      [](const std::vector<std::string>& s) {
                                        std::string out = s[0];
                                        for (const std::string& other : s) {
                                          for (size_t i = 0; i < out.size(); ++i)
                                            out[i] = static_cast<char>(out[i] & other[i]);
                                        }
                                        return std::vector<std::string>{out};
                                      });
    bits.assign(result[0].begin(), result[0].end());
  }

 private:
  FakeChannelHub& hub_;
  int rank_;
};

}  // namespace hvd::test
