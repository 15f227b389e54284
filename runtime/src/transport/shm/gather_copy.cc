// SPDX-License-Identifier: Apache-2.0
#include "transport/shm/gather_copy.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#ifdef __SSE2__  // every x86-64
#include <immintrin.h>
#define HVD_STREAM_STORES 1
#endif

namespace hvd::backends::ring {
namespace {

constexpr size_t kLine = 64;

}  // namespace

void gather_into(char* dst, PieceCursor& from, size_t n, GatherMethod method) {
  from.take(n, [&](const char* data, size_t len) {
    if (method == GatherMethod::kStream) {
      stream_copy(dst, data, len);
    } else {
      std::memcpy(dst, data, len);
    }
    dst += len;
  });
}

void stream_copy(char* dst, const char* src, size_t n) {
#ifdef HVD_STREAM_STORES
  const size_t head = std::min(n, (kLine - reinterpret_cast<uintptr_t>(dst) % kLine) % kLine);
  std::memcpy(dst, src, head);
  dst += head;
  src += head;
  n -= head;
  // Four 16-byte stores fill one line, which then goes out whole.
  for (; n >= kLine; n -= kLine, dst += kLine, src += kLine) {
    const auto* s = reinterpret_cast<const __m128i*>(src);
    auto* d = reinterpret_cast<__m128i*>(dst);
    const __m128i a = _mm_loadu_si128(s);
    const __m128i b = _mm_loadu_si128(s + 1);
    const __m128i c = _mm_loadu_si128(s + 2);
    const __m128i e = _mm_loadu_si128(s + 3);
    _mm_stream_si128(d, a);
    _mm_stream_si128(d + 1, b);
    _mm_stream_si128(d + 2, c);
    _mm_stream_si128(d + 3, e);
  }
#endif
  std::memcpy(dst, src, n);
}

void stream_fence() {
#ifdef HVD_STREAM_STORES
  _mm_sfence();
#endif
}

void RingPrefetch::past(const char* run_end) {
  if (run_end >= end_) return;  // the chunk's last run, or not many runs
  const char* upto = run_end + std::min(kAhead, static_cast<size_t>(end_ - run_end));
  if (next_ < run_end) next_ = run_end;  // the run at hand is read right away
  for (; next_ < upto; next_ += kLine) __builtin_prefetch(next_);
}

int CopyTimes::pick() {
  ++picks_;
  if (!measured_[0]) return 0;
  if (!measured_[1]) return 1;
  const int faster = ns_per_byte_[0] <= ns_per_byte_[1] ? 0 : 1;
  return picks_ % kExplore == 0 ? 1 - faster : faster;
}

void CopyTimes::record(int way, size_t bytes, std::chrono::nanoseconds took) {
  if (bytes == 0) return;
  const auto i = static_cast<size_t>(way);
  const double sample = static_cast<double>(took.count()) / static_cast<double>(bytes);
  if (!measured_[i]) {
    ns_per_byte_[i] = sample;
    measured_[i] = true;
    return;
  }
  // Noise only adds time (a page fault on the first touch of the ring, losing the core in the
  // middle of a copy), so a faster copy counts in full at once, and a slower one counts for a
  // quarter, at most twice the average: one slow copy cannot flip the choice, while a way that
  // got slower for good loses it within a few copies.
  double& avg = ns_per_byte_[i];
  avg = sample < avg ? sample : avg + (std::min(sample, 2 * avg) - avg) / 4;
}

}  // namespace hvd::backends::ring
