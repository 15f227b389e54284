// SPDX-License-Identifier: Apache-2.0
#pragma once
// TimelineFile: a JSON array on disk that is valid JSON at every instant, so that a rank killed
// by SIGKILL (or a crash) still leaves a trace that parses.
//
// How: the file always ends with the closing "]". Elements are written in chunks, each one
// write(2) that overwrites the old "]" and ends with a new one, and each chunk lies inside one
// page of the file. Linux copies a buffered write into the page cache page by page and checks
// for a fatal signal only between pages, so a chunk that touches one page lands whole or not
// at all. When the next element does not fit in the rest of the page, the "]" is padded to the
// page's last byte (whitespace is legal between elements) and moved across the boundary by a
// single 2-byte store through a shared mapping: one CPU instruction, which a kill cannot split.
// Process death is covered; a kernel crash or power loss is not (no fsync).

#include <cstdint>
#include <string>
#include <string_view>

namespace hvd::core {

class TimelineFile {
 public:
  static constexpr size_t kDefaultWindowPages = 256;

  /// Creates (or replaces) `path` holding "[]", atomically (temp file + rename).
  /// Throws ConfigError when the file cannot be created.
  /// `window_pages`: how many pages one mapping of the file covers (at least 2; see mapped()).
  explicit TimelineFile(const std::string& path, size_t window_pages = kDefaultWindowPages);
  ~TimelineFile();
  TimelineFile(const TimelineFile&) = delete;
  TimelineFile& operator=(const TimelineFile&) = delete;

  /// Buffers one array element: serialized JSON, at most max_element_bytes() long (HVD_CHECK).
  /// May write earlier elements to make room. Throws ConfigError on a write error.
  void append(std::string_view element);
  /// Writes the buffered elements. Throws ConfigError on a write error.
  void commit();
  /// Commits, then adds a final newline and closes the file. Idempotent.
  void close();

  /// The largest element append() accepts: a page, less separators and the bracket.
  size_t max_element_bytes() const { return page_ - 3; }
  const std::string& path() const { return path_; }

 private:
  size_t room() const { return page_ - static_cast<size_t>(close_pos_ % page_); }
  void move_to_next_page();
  void cross_page_boundary();
  // `bytes` of the file at `offset`, through the shared mapping (remapped when needed).
  char* mapped(uint64_t offset, size_t bytes);
  void unmap();
  size_t window_bytes() const { return window_pages_ * page_; }
  void write_at(std::string_view bytes, uint64_t offset);

  std::string path_;
  int fd_ = -1;
  size_t page_;
  uint64_t close_pos_ = 1;  // offset of the closing "]"; the file ends right after it
  bool has_elements_ = false;
  std::string chunk_;  // elements with separators, not yet written
  size_t window_pages_;
  char* window_ = nullptr;  // the mapped window, or null
  uint64_t window_start_ = 0;
};

}  // namespace hvd::core
