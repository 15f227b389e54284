// SPDX-License-Identifier: Apache-2.0
#include "core/timeline_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "files/atomic_file.h"
#include "hvd/error.h"
#include "hvd/str_cat.h"

namespace hvd::core {
namespace {

[[noreturn]] void throw_io(const std::string& what, const std::string& path) {
  throw ConfigError(str_cat("timeline: ", what, " ", path, ": ", std::strerror(errno)));
}

// Stores two bytes at `at` (which may straddle a page boundary) with one instruction, so that
// no signal can leave one byte changed and not the other.
void store_two_bytes(char* at, char first, char second) {
  const uint16_t value = static_cast<uint16_t>(static_cast<unsigned char>(first) |
                                               static_cast<unsigned char>(second) << 8);
#if defined(__x86_64__) || defined(__i386__)
  __asm__ volatile("movw %w1, (%0)" : : "r"(at), "r"(value) : "memory");
#elif defined(__aarch64__)
  __asm__ volatile("strh %w1, [%0]" : : "r"(at), "r"(value) : "memory");
#else
  // Compilers emit one 16-bit store for a 2-byte memcpy; not guaranteed, hence the asm above.
  std::memcpy(at, &value, 2);
#endif
}

}  // namespace

TimelineFile::TimelineFile(const std::string& path, size_t window_pages)
    : path_(path), page_(static_cast<size_t>(sysconf(_SC_PAGESIZE))), window_pages_(window_pages) {
  HVD_CHECK(page_ >= 64, "page size ", page_);
  HVD_CHECK(window_pages_ >= 2, "a timeline mapping of ", window_pages_, " pages");
  // Built under a fresh mkstemp name (O_EXCL: a symlink planted beside it is never followed)
  // and renamed at once, so that `path` is never seen empty or half-written; from then on the
  // file grows in place and stays valid JSON (see the header). The AtomicFile's descriptor
  // closes with it, so the file keeps a duplicate.
  files::AtomicFile file(path);
  file.write("[]");
  file.commit();
  fd_ = ::fcntl(file.fd(), F_DUPFD_CLOEXEC, 0);
  if (fd_ < 0) throw_io("cannot keep open", path);
}

TimelineFile::~TimelineFile() {
  unmap();
  if (fd_ >= 0) ::close(fd_);  // the file is valid as it stands; nothing to finish
}

void TimelineFile::append(std::string_view element) {
  HVD_CHECK(fd_ >= 0, "append after close: ", path_);
  HVD_CHECK(element.size() <= max_element_bytes(), "timeline element of ", element.size(),
            " bytes exceeds ", max_element_bytes());
  const std::string_view sep = has_elements_ ? ",\n" : "\n";
  const size_t need = sep.size() + element.size() + 1;  // + the closing bracket
  if (chunk_.size() + need > room()) {
    commit();
    if (need > room()) move_to_next_page();
  }
  chunk_.append(sep).append(element);
  has_elements_ = true;
}

void TimelineFile::commit() {
  if (chunk_.empty()) return;
  chunk_.push_back(']');
  write_at(chunk_, close_pos_);  // one page: lands whole or not at all
  close_pos_ += chunk_.size() - 1;
  chunk_.clear();
}

void TimelineFile::close() {
  if (fd_ < 0) return;
  commit();
  write_at("\n", close_pos_ + 1);  // trailing whitespace: valid whether or not it lands
  unmap();
  ::close(fd_);
  fd_ = -1;
}

void TimelineFile::move_to_next_page() {
  const size_t r = room();
  if (r > 1) {
    std::string pad(r - 1, ' ');
    pad.push_back(']');
    write_at(pad, close_pos_);  // "]" to the last byte of this page, still inside it
    close_pos_ += r - 1;
  }
  write_at(" ", close_pos_ + 1);  // grow the file by one byte of trailing whitespace
  cross_page_boundary();
  close_pos_ += 1;
}

void TimelineFile::cross_page_boundary() {
  char* at = mapped(close_pos_, 2);
  // Touch both pages with their current bytes first, so the store below takes no page fault.
  volatile char* touch = at;
  touch[0] = ']';
  touch[1] = ' ';
  store_two_bytes(at, ' ', ']');
}

// A mapping of the file is a window of many pages, remapped only when the boundary leaves it:
// an munmap in a process with several threads interrupts all of them (a TLB shootdown), and
// once per page of trace that cost more than the rest of the timeline together. Pages of the
// window beyond the end of the file are mapped but never touched (that would be SIGBUS).
char* TimelineFile::mapped(uint64_t offset, size_t bytes) {
  if (window_ == nullptr || offset < window_start_ ||
      offset + bytes > window_start_ + window_bytes()) {
    unmap();
    const uint64_t start = offset - offset % page_;
    void* map = ::mmap(nullptr, window_bytes(), PROT_READ | PROT_WRITE, MAP_SHARED, fd_,
                       static_cast<off_t>(start));
    if (map == MAP_FAILED) throw_io("cannot map", path_);
    window_ = static_cast<char*>(map);
    window_start_ = start;
  }
  return window_ + (offset - window_start_);
}

void TimelineFile::unmap() {
  if (window_ != nullptr) ::munmap(window_, window_bytes());
  window_ = nullptr;
}

void TimelineFile::write_at(std::string_view bytes, uint64_t offset) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n =
        ::pwrite(fd_, bytes.data() + done, bytes.size() - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) errno = EIO;
    if (n <= 0) throw_io("cannot write", path_);
    done += static_cast<size_t>(n);
  }
}

}  // namespace hvd::core
