// SPDX-License-Identifier: Apache-2.0
#pragma once
// Files that appear whole or not at all, and that no other user can redirect.
//
// Every file hvdrun, libhvd or hvd-train writes goes through here: the bytes go to a fresh
// mkstemp() name in the target's own directory (O_EXCL, mode 0600 until committed, so a
// symlink planted at a predictable name is never followed), are fsync()ed, renamed over the
// target (rename() replaces a symlink at the target, it does not write through it), and the
// directory is fsync()ed so that the rename survives a crash. A writer that fails or is
// destroyed before commit() unlinks its temporary file.
//
// Errors are ConfigError naming the path: the path comes from the user (a flag or a variable),
// so a bad one is theirs to fix (exit 3).

#include <sys/types.h>

#include <string>
#include <string_view>

namespace hvd::files {

class AtomicFile {
 public:
  /// Creates the temporary file beside `path`. `mode` is applied at commit(), less the umask.
  /// Throws ConfigError when the directory is missing or not writable.
  explicit AtomicFile(std::string path, mode_t mode = 0644);
  /// Unlinks the temporary file unless commit() succeeded.
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  /// The open temporary file, for writers that stream or mmap.
  int fd() const { return fd_; }
  const std::string& path() const { return path_; }
  const std::string& temp_path() const { return temp_; }

  /// Appends all of `bytes` (retrying short writes). Throws ConfigError.
  void write(std::string_view bytes);

  /// fsync, chmod, rename over path(), fsync the directory. The fd stays open (and keeps
  /// naming the same file, now at path()) until the object is destroyed. Throws ConfigError;
  /// after a failure the temporary file is gone.
  void commit();

 private:
  std::string path_;
  std::string temp_;
  mode_t mode_;
  int fd_ = -1;
  bool committed_ = false;
};

/// The whole of `content` to `path` through an AtomicFile.
void write_file_atomically(const std::string& path, std::string_view content, mode_t mode = 0644);

/// fsync() of the directory that holds `path`, so that a rename or unlink in it is durable.
/// Throws ConfigError.
void sync_parent_directory(const std::string& path);

}  // namespace hvd::files
