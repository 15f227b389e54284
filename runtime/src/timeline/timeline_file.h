// SPDX-License-Identifier: Apache-2.0
#pragma once
// TimelineFile: one rank's timeline on disk, an append-only file of binary records
// (timeline_format.h). Appends are plain write(2)s at the end, so a process killed during one
// leaves a prefix of what it was writing: every record before it is whole, and the merge drops
// a torn last record. Process death is covered; a kernel crash or power loss is not (no fsync).

#include <cstdint>
#include <string>
#include <string_view>

namespace hvd::core {

class TimelineFile {
 public:
  /// Creates (or replaces) `path` holding just the file header for `rank`, atomically (temp
  /// file + rename), so that it is never seen without one. Throws ConfigError when the file
  /// cannot be created.
  TimelineFile(const std::string& path, uint32_t rank);
  ~TimelineFile();
  TimelineFile(const TimelineFile&) = delete;
  TimelineFile& operator=(const TimelineFile&) = delete;

  /// Appends whole records. Throws ConfigError on a write error (disk full).
  void append(std::string_view records);
  /// Closes the file. Idempotent.
  void close();

  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int fd_ = -1;
  uint64_t end_ = 0;  // where the next append goes
};

}  // namespace hvd::core
