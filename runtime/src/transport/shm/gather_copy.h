// SPDX-License-Identifier: Apache-2.0
#pragma once
// How the shm transport copies a chunk of many short runs (the tensors of a fused response,
// each its own allocation) into a peer's ring, and out of its own.
//
// memcpy moves each run with one `rep movsb`: fast for one long run, but each short one pays
// for fetching the ring's lines that the peer's core read last. When the two cores share no
// cache (where the hypervisor put them: it changes while a job runs), 4 KiB runs took ~60%
// longer than one long run; non-temporal stores, which write whole lines without fetching
// them, took no longer than the long run. When the cores share a cache, non-temporal stores
// took 2.4x as long as memcpy. So each channel times both on the chunks it sends and keeps
// the faster (GatherChooser); a chunk of one run always takes memcpy.
//
// Out of the ring, copying or reducing into many runs restarts the hardware's prefetching at
// every run: without a shared cache, 100 x 4 KiB allreduced on 2 ranks took 31.5 us against
// 24.5 us for one buffer. Prefetching the ring's next 4 KiB before each run (RingPrefetch)
// brought it to 26.5 us (2 KiB ahead was slower than none); with a shared cache it cost
// ~1.5 us in the fused step. So each channel times that too, and keeps the faster
// (ScatterChooser).

#include <chrono>
#include <cstddef>

#include "transport/pieces.h"

namespace hvd::backends::ring {

enum class GatherMethod { kMemcpy = 0, kStream = 1 };
enum class ScatterMethod { kPlain = 0, kPrefetch = 1 };

/// Copies the next n bytes at `from` to dst (and moves `from` past them). kStream stores are
/// weakly ordered: call stream_fence() before publishing them.
void gather_into(char* dst, PieceCursor& from, size_t n, GatherMethod method);

/// Copies n bytes with non-temporal stores for the whole 64-byte lines of dst and memcpy for
/// the ragged ends (plain memcpy where there are no such stores).
void stream_copy(char* dst, const char* src, size_t n);

/// Orders every earlier stream_copy() store before any later store.
void stream_fence();

/// The faster of two ways to copy (Way: an enum class of 0 and 1) on one channel, from the
/// copy times measured on it: the faster one, and the other every kExplore-th pick, so that a
/// change of the machine is noticed. The first picks measure each way once. Not thread-safe
/// (one per channel and direction, as the transport).
class CopyTimes {
 public:
  // A tried chunk of the slower way cost ~3 us more on 2 ranks: 1 in 64 keeps that under 1%
  // of a fused allreduce of 100 x 4 KiB, and a change is still noticed within 64 chunks.
  static constexpr unsigned kExplore = 64;

  /// 0 or 1.
  int pick();
  /// `took` is how long `way` took to copy `bytes`.
  void record(int way, size_t bytes, std::chrono::nanoseconds took);

 private:
  double ns_per_byte_[2] = {0, 0};  // recent copy cost, by way
  bool measured_[2] = {false, false};
  unsigned picks_ = 0;
};

template <typename Way>
class CopyChooser {
 public:
  static constexpr unsigned kExplore = CopyTimes::kExplore;

  Way pick() { return static_cast<Way>(times_.pick()); }
  void record(Way way, size_t bytes, std::chrono::nanoseconds took) {
    times_.record(static_cast<int>(way), bytes, took);
  }

 private:
  CopyTimes times_;
};

/// Into the ring: memcpy or streaming stores.
using GatherChooser = CopyChooser<GatherMethod>;
/// Out of the ring: with RingPrefetch or without.
using ScatterChooser = CopyChooser<ScatterMethod>;

/// Prefetches a chunk of the ring that is scattered into many runs, kAhead bytes past the run
/// being copied or reduced out of it.
class RingPrefetch {
 public:
  static constexpr size_t kAhead = 4096;

  /// Prefetches nothing unless `many`.
  RingPrefetch(const char* chunk, size_t bytes, bool many)
      : next_(chunk), end_(many ? chunk + bytes : chunk) {}
  /// Call before handling the run that ends at `run_end`.
  void past(const char* run_end);

 private:
  const char* next_;  // the first line not prefetched yet
  const char* end_;
};

}  // namespace hvd::backends::ring
