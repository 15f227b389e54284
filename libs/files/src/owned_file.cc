// SPDX-License-Identifier: Apache-2.0
#include "files/owned_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "hvd/error.h"
#include "hvd/str_cat.h"

namespace hvd::files {
namespace {

// Closes the descriptor on every path out, the throwing ones included.
class OpenFile {
 public:
  explicit OpenFile(int fd) : fd_(fd) {}
  ~OpenFile() {
    if (fd_ >= 0) close(fd_);
  }
  OpenFile(const OpenFile&) = delete;
  OpenFile& operator=(const OpenFile&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  return "not a regular file";
}

// The checks and the read, on a descriptor opened with O_NOFOLLOW|O_NONBLOCK.
std::string read_checked(const OpenFile& file, const std::string& name, size_t max_bytes) {
  struct stat st {};
  if (fstat(file.get(), &st) != 0) {
    throw ConfigError(str_cat(name, ": cannot stat: ", std::strerror(errno)));
  }
  if (!S_ISREG(st.st_mode)) {
    throw ConfigError(str_cat(name, ": not read: it is ", kind_of(st.st_mode),
                              ", not a regular file; remove it"));
  }
  if (st.st_uid != geteuid()) {
    throw ConfigError(str_cat(name, ": not read: it belongs to uid ", st.st_uid,
                              ", not to you (uid ", geteuid(),
                              "); another user may have put it there; remove it"));
  }
  if (static_cast<unsigned long long>(st.st_size) > max_bytes) {
    throw ConfigError(str_cat(name, ": not read: ", st.st_size, " bytes, more than the ", max_bytes,
                              " expected here"));
  }
  std::string content;
  char buf[65536];
  for (;;) {  // the file may grow after fstat: the bound holds for what is read too
    const ssize_t n = read(file.get(), buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw ConfigError(str_cat(name, ": cannot read: ", std::strerror(errno)));
    if (n == 0) return content;
    if (content.size() + static_cast<size_t>(n) > max_bytes) {
      throw ConfigError(
          str_cat(name, ": not read: more than the ", max_bytes, " bytes expected here"));
    }
    content.append(buf, static_cast<size_t>(n));
  }
}

std::string open_failure(const std::string& name, int err) {
  // O_NOFOLLOW reports a symlink as ELOOP, which reads as "too many levels" otherwise.
  if (err == ELOOP) return str_cat(name, ": not read: it is a symlink; remove it");
  return str_cat(name, ": cannot open: ", std::strerror(err));
}

constexpr int kOpenFlags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY;

}  // namespace

std::string read_owned_file(const std::string& path, size_t max_bytes) {
  const OpenFile file(open(path.c_str(), kOpenFlags));
  if (file.get() < 0) throw ConfigError(open_failure(path, errno));
  return read_checked(file, path, max_bytes);
}

std::string read_owned_file_at(int dir_fd, const std::string& name, size_t max_bytes) {
  HVD_CHECK(name.find('/') == std::string::npos, "read_owned_file_at takes one name: ", name);
  const OpenFile file(openat(dir_fd, name.c_str(), kOpenFlags));
  if (file.get() < 0) throw ConfigError(open_failure(name, errno));
  return read_checked(file, name, max_bytes);
}

}  // namespace hvd::files
