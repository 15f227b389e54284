// SPDX-License-Identifier: Apache-2.0
#include "transport/shm/shm_segment.h"

#include <fcntl.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <new>
#include <system_error>
#include <utility>

#include "hvd/error.h"
#include "hvd/str_cat.h"
#include "net/errno_text.h"
#include "net/socket.h"

namespace hvd::backends::ring {
namespace {

using net::errno_text;

constexpr uint64_t kShmMagic = 0x48564452494e4731;  // "HVDRING1"

size_t channel_stride(size_t capacity) { return sizeof(ShmChannel) + capacity; }

size_t segment_bytes(int size, size_t capacity) {
  return sizeof(ShmSegmentHeader) + static_cast<size_t>(size) * channel_stride(capacity);
}

void* map_fd(int fd, size_t bytes, const std::string& name) {
  void* base = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (base == MAP_FAILED) {
    throw BootstrapError(str_cat("ring shm: mmap of ", name, ": ", errno_text(errno)));
  }
  return base;
}

}  // namespace

ShmSegment::ShmSegment(std::string name, void* base, size_t bytes, bool owner)
    : name_(std::move(name)),
      base_(base),
      bytes_(bytes),
      owner_(owner),
      header_(static_cast<ShmSegmentHeader*>(base)) {}

ShmSegment::ShmSegment(ShmSegment&& other) noexcept
    : name_(std::move(other.name_)),
      base_(std::exchange(other.base_, nullptr)),
      bytes_(other.bytes_),
      owner_(std::exchange(other.owner_, false)),
      header_(std::exchange(other.header_, nullptr)) {}

ShmSegment::~ShmSegment() {
  if (base_ != nullptr) munmap(base_, bytes_);
  unlink();
}

void ShmSegment::unlink() {
  if (owner_) shm_unlink(name_.c_str());
  owner_ = false;
}

ShmSegment ShmSegment::create(const std::string& name, int rank, int size, size_t capacity) {
  const size_t bytes = segment_bytes(size, capacity);
  net::Fd fd(shm_open(name.c_str(), O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600));
  if (!fd.valid()) {
    throw BootstrapError(str_cat("ring shm: shm_open(", name, "): ", errno_text(errno)));
  }
  // Owns the name from here on, so that any failure below unlinks it.
  ShmSegment seg(name, nullptr, bytes, true);
  const int rc = posix_fallocate(fd.get(), 0, static_cast<off_t>(bytes));
  if (rc != 0) {
    throw BootstrapError(str_cat("ring shm: cannot allocate ", bytes, " bytes for ", name,
                                 " (is /dev/shm full?): ", errno_text(rc)));
  }
  seg.base_ = map_fd(fd.get(), bytes, name);
  seg.header_ = new (seg.base_) ShmSegmentHeader();
  seg.header_->rank = static_cast<uint32_t>(rank);
  seg.header_->size = static_cast<uint32_t>(size);
  seg.header_->capacity = capacity;
  seg.header_->pid = getpid();
  for (int s = 0; s < size; ++s) new (&seg.channel(s)) ShmChannel();
  std::atomic_thread_fence(std::memory_order_release);
  seg.header_->magic = kShmMagic;
  return seg;
}

ShmSegment ShmSegment::open(const std::string& name, int rank, int size, size_t capacity) {
  const size_t bytes = segment_bytes(size, capacity);
  net::Fd fd(shm_open(name.c_str(), O_RDWR | O_CLOEXEC, 0600));
  if (!fd.valid()) {
    throw BootstrapError(str_cat("ring shm: cannot open rank ", rank, "'s segment ", name,
                                 " (is it on another host?): ", errno_text(errno)));
  }
  struct stat st {};
  if (fstat(fd.get(), &st) != 0 || static_cast<size_t>(st.st_size) != bytes) {
    throw BootstrapError(str_cat("ring shm: rank ", rank, "'s segment ", name, " has ", st.st_size,
                                 " bytes, expected ", bytes, " (different channel sizes?)"));
  }
  ShmSegment seg(name, map_fd(fd.get(), bytes, name), bytes, false);
  const ShmSegmentHeader& h = seg.header();
  if (h.magic != kShmMagic || h.rank != static_cast<uint32_t>(rank) ||
      h.size != static_cast<uint32_t>(size) || h.capacity != capacity) {
    throw BootstrapError(str_cat("ring shm: segment ", name, " belongs to rank ", h.rank, " of ",
                                 h.size, " with capacity ", h.capacity, ", not rank ", rank, " of ",
                                 size, " with capacity ", capacity));
  }
  return seg;
}

ShmChannel& ShmSegment::channel(int sender) const {
  char* at = static_cast<char*>(base_) + sizeof(ShmSegmentHeader) +
             static_cast<size_t>(sender) * channel_stride(header_->capacity);
  return *reinterpret_cast<ShmChannel*>(at);
}

char* ShmSegment::ring(int sender) const {
  return reinterpret_cast<char*>(&channel(sender)) + sizeof(ShmChannel);
}

void ring_doorbell(ShmDoorbell& bell) {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (bell.sleeping.load(std::memory_order_relaxed) == 0) return;
  bell.seq.fetch_add(1, std::memory_order_acq_rel);
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(&bell.seq), FUTEX_WAKE, INT_MAX, nullptr, nullptr,
          0);
}

namespace detail {
void futex_wait(std::atomic<uint32_t>& word, uint32_t expected, std::chrono::nanoseconds max) {
  const auto secs = std::chrono::duration_cast<std::chrono::seconds>(max);
  const timespec ts{static_cast<time_t>(secs.count()), static_cast<long>((max - secs).count())};
  // EAGAIN (the word changed), EINTR and ETIMEDOUT all just mean "look again".
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(&word), FUTEX_WAIT, expected, &ts, nullptr, 0);
}
}  // namespace detail

}  // namespace hvd::backends::ring
