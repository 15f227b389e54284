// SPDX-License-Identifier: Apache-2.0
#pragma once
// TimelineRing: the buffer between one recording thread and the timeline's writer thread.
// Single producer, single consumer, no lock: the producer copies a record's words in and
// publishes them with one release store; the consumer takes everything published so far.
// Recording threads therefore never wait for each other, nor for the writer.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace hvd::core {

class TimelineRing {
 public:
  /// A ring of at least `min_words` 8-byte words (rounded up to a power of two).
  explicit TimelineRing(size_t min_words);
  TimelineRing(const TimelineRing&) = delete;
  TimelineRing& operator=(const TimelineRing&) = delete;

  /// Producer only. Copies `n` words in; returns the words held afterwards, or 0 when they did
  /// not fit (nothing is copied then).
  size_t push(const uint64_t* words, size_t n);
  /// Consumer only. Appends every published word to `out`, as bytes, and frees their room.
  void drain(std::string& out);

  size_t capacity() const { return ring_.size(); }

 private:
  std::vector<uint64_t> ring_;
  const uint64_t mask_;
  // On their own cache lines: the producer writes head_, the consumer tail_.
  alignas(64) std::atomic<uint64_t> head_{0};
  alignas(64) std::atomic<uint64_t> tail_{0};
};

}  // namespace hvd::core
