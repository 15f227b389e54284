// SPDX-License-Identifier: Apache-2.0
#include "timeline/timeline_ring.h"

#include <algorithm>
#include <cstring>

namespace hvd::core {
namespace {

size_t round_up_to_power_of_two(size_t n) {
  size_t p = 1;
  while (p < n) p <<= 1;
  return p;
}

}  // namespace

TimelineRing::TimelineRing(size_t min_words)
    : ring_(round_up_to_power_of_two(std::max<size_t>(min_words, 2))), mask_(ring_.size() - 1) {}

size_t TimelineRing::push(const uint64_t* words, size_t n) {
  const uint64_t head = head_.load(std::memory_order_relaxed);
  const uint64_t tail = tail_.load(std::memory_order_acquire);
  const uint64_t used = head - tail;
  if (n > ring_.size() - used) return 0;
  const size_t at = static_cast<size_t>(head & mask_);
  const size_t first = std::min(n, ring_.size() - at);  // up to the end of the ring, then wrap
  std::memcpy(&ring_[at], words, first * sizeof(uint64_t));
  std::memcpy(ring_.data(), words + first, (n - first) * sizeof(uint64_t));
  head_.store(head + n, std::memory_order_release);
  return static_cast<size_t>(used + n);
}

void TimelineRing::drain(std::string& out) {
  const uint64_t tail = tail_.load(std::memory_order_relaxed);
  const uint64_t head = head_.load(std::memory_order_acquire);
  const size_t n = static_cast<size_t>(head - tail);
  if (n == 0) return;
  const size_t at = static_cast<size_t>(tail & mask_);
  const size_t first = std::min(n, ring_.size() - at);
  out.append(reinterpret_cast<const char*>(&ring_[at]), first * sizeof(uint64_t));
  out.append(reinterpret_cast<const char*>(ring_.data()), (n - first) * sizeof(uint64_t));
  tail_.store(head, std::memory_order_release);
}

}  // namespace hvd::core
