// SPDX-License-Identifier: Apache-2.0
#pragma once
// Reading a file from a place that another user may be able to write (the working folder of a
// batch job, /tmp, a group folder), without letting that user choose what is read.
//
// The file is opened O_RDONLY|O_NOFOLLOW|O_NONBLOCK|O_CLOEXEC: a symlink planted at the name
// is refused instead of followed, and a FIFO does not block the open (a FIFO held open with no
// writer would stop hvdrun in open() with SIGINT and SIGTERM pending). Then fstat() on the open
// descriptor, so the checks are of the file that is read: a regular file, owned by the
// effective uid, and no larger than the caller's bound (a 3 GB sparse file is refused, not
// read into memory).
//
// Errors are ConfigError naming the path and what was wrong (exit 3), as in atomic_file.h: the
// path comes from the user or from a folder the user chose.

#include <cstddef>
#include <string>

namespace hvd::files {

/// The whole content of `path`, after the checks above; at most `max_bytes`. Throws ConfigError
/// when it cannot be opened (missing included), is a symlink, is not a regular file, belongs to
/// another uid, or holds more than `max_bytes`.
std::string read_owned_file(const std::string& path, size_t max_bytes);

/// The same for `name` in the directory open at `dir_fd` (openat: a folder opened once, which a
/// rename of its path cannot swap). `name` is a single component; errors name `name`.
std::string read_owned_file_at(int dir_fd, const std::string& name, size_t max_bytes);

}  // namespace hvd::files
