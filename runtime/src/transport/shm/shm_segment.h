// SPDX-License-Identifier: Apache-2.0
#pragma once
// ShmSegment: one rank's shared-memory segment for ShmTransport, and the lock-free pieces
// that live in it.
//
// Layout (every rank owns one segment; peers map it too):
//   SegmentHeader   magic, owner rank/size/pid, channel capacity, `closed` flag, Doorbell
//   size x Channel  channel s carries the byte stream from rank s to the owner: a header
//                   with the producer's `head` and the consumer's `tail` (total bytes
//                   written / consumed, each on its own cache line), then `capacity` bytes
//                   of ring. The owner's own slot is unused.
//
// Each channel is single-producer single-consumer: the producer copies bytes in and then
// publishes head with a release store; the consumer reads head with acquire, uses the bytes,
// then publishes tail with release; the producer reads tail with acquire before reusing
// space. Nothing else is shared.
//
// Waiting: each rank has one Doorbell (in its own segment). A rank with nothing to do sets
// `sleeping`, re-checks its channels and futex-waits on `seq`; anyone who changes a cursor
// the rank may be waiting on rings its doorbell (bump `seq`, FUTEX_WAKE) only when
// `sleeping` is set. A seq_cst fence on both sides (Dekker) makes sure that either the
// sleeper sees the new cursor or the ringer sees `sleeping`, so no wake-up is lost; waits are
// also bounded, so that deadlines and dead peers are noticed.

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

namespace hvd::backends::ring {

struct alignas(64) ShmCursor {
  std::atomic<uint64_t> value{0};
};

struct ShmChannel {
  ShmCursor head;  // written by the producer (the peer)
  ShmCursor tail;  // written by the consumer (the owner)
};

struct alignas(64) ShmDoorbell {
  std::atomic<uint32_t> seq{0};
  std::atomic<uint32_t> sleeping{0};
};

struct alignas(64) ShmSegmentHeader {
  uint64_t magic = 0;
  uint32_t rank = 0;
  uint32_t size = 0;
  uint64_t capacity = 0;
  int64_t pid = 0;
  alignas(64) std::atomic<uint32_t> closed{0};  // set once the owner is gone
  ShmDoorbell bell;
};

static_assert(std::atomic<uint64_t>::is_always_lock_free, "shared-memory cursors need it");
static_assert(std::atomic<uint32_t>::is_always_lock_free, "futex words need it");

class ShmSegment {
 public:
  /// Creates, sizes (fully allocated, so a full /dev/shm is an error here rather than a
  /// SIGBUS later) and maps a new segment named `name`. Throws BootstrapError.
  static ShmSegment create(const std::string& name, int rank, int size, size_t capacity);
  /// Maps the existing segment `name`, checking that it belongs to rank `rank` of `size`
  /// with the given capacity. Throws BootstrapError.
  static ShmSegment open(const std::string& name, int rank, int size, size_t capacity);

  ShmSegment(ShmSegment&& other) noexcept;
  ShmSegment& operator=(ShmSegment&& other) = delete;
  ShmSegment(const ShmSegment&) = delete;
  ShmSegment& operator=(const ShmSegment&) = delete;
  /// Unmaps; a creator that has not unlinked yet unlinks too.
  ~ShmSegment();

  /// Removes the name (creator only); the mappings stay valid.
  void unlink();

  ShmSegmentHeader& header() const { return *header_; }
  /// The channel that carries bytes from rank `sender` to this segment's owner.
  ShmChannel& channel(int sender) const;
  char* ring(int sender) const;

 private:
  ShmSegment(std::string name, void* base, size_t bytes, bool owner);

  std::string name_;
  void* base_;
  size_t bytes_;
  bool owner_;  // created it and has not unlinked it yet
  ShmSegmentHeader* header_;
};

/// Wakes the doorbell's owner if it is asleep. Call after publishing a cursor.
void ring_doorbell(ShmDoorbell& bell);

/// One bounded sleep of the doorbell's owner: arms `sleeping`, returns at once if
/// ready() (called after the fence) is true, otherwise futex-waits at most `max_wait` for a
/// ring. Returns ready()'s value.
template <typename Ready>
bool sleep_on_doorbell(ShmDoorbell& bell, std::chrono::nanoseconds max_wait, Ready&& ready);

namespace detail {
void futex_wait(std::atomic<uint32_t>& word, uint32_t expected, std::chrono::nanoseconds max);
}  // namespace detail

template <typename Ready>
bool sleep_on_doorbell(ShmDoorbell& bell, std::chrono::nanoseconds max_wait, Ready&& ready) {
  const uint32_t seq = bell.seq.load(std::memory_order_acquire);
  bell.sleeping.store(1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_seq_cst);
  const bool is_ready = ready();
  if (!is_ready) detail::futex_wait(bell.seq, seq, max_wait);
  bell.sleeping.store(0, std::memory_order_relaxed);
  return is_ready;
}

}  // namespace hvd::backends::ring
