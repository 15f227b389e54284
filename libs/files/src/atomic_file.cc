// SPDX-License-Identifier: Apache-2.0
#include "files/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>
#include <vector>

#include "hvd/error.h"
#include "hvd/str_cat.h"

namespace hvd::files {
namespace {

[[noreturn]] void fail(const std::string& what, const std::string& path, int err) {
  throw ConfigError(str_cat(path, ": cannot ", what, ": ", std::strerror(err)));
}

std::string parent_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

// The process's umask, read from /proc (Linux 4.7+) so that no other thread ever sees it
// changed; only where /proc lacks it, umask() is set and put straight back.
mode_t current_umask() {
  if (FILE* status = std::fopen("/proc/self/status", "re")) {
    char line[256];
    unsigned mask = 0;
    bool found = false;
    while (!found && std::fgets(line, sizeof(line), status) != nullptr) {
      found = std::sscanf(line, "Umask: %o", &mask) == 1;
    }
    std::fclose(status);
    if (found) return static_cast<mode_t>(mask);
  }
  const mode_t mask = ::umask(022);
  ::umask(mask);
  return mask;
}

}  // namespace

AtomicFile::AtomicFile(std::string path, mode_t mode) : path_(std::move(path)), mode_(mode) {
  struct stat st {};
  if (path_.empty() || path_.back() == '/' ||
      (::stat(path_.c_str(), &st) == 0 && S_ISDIR(st.st_mode))) {
    throw ConfigError(str_cat("'", path_, "' names a directory, not a file; name a file in it"));
  }
  const size_t slash = path_.rfind('/');
  const std::string base = slash == std::string::npos ? path_ : path_.substr(slash + 1);
  // A dot prefix keeps the partial file out of globs such as *.json; XXXXXX is mkstemp's.
  std::string tmpl = slash == std::string::npos ? "" : path_.substr(0, slash + 1);
  tmpl += "." + base + ".hvd-XXXXXX";
  std::vector<char> name(tmpl.begin(), tmpl.end());
  name.push_back('\0');
  fd_ = ::mkostemp(name.data(), O_CLOEXEC);
  if (fd_ < 0) fail(str_cat("create a file in the folder ", parent_of(path_)), path_, errno);
  temp_.assign(name.data());
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_) ::unlink(temp_.c_str());
}

void AtomicFile::write(std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd_, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      fail("write", path_, errno);
    }
    bytes.remove_prefix(static_cast<size_t>(n));
  }
}

void AtomicFile::commit() {
  if (committed_) return;
  if (::fchmod(fd_, mode_ & ~current_umask()) != 0) fail("set the mode of", path_, errno);
  if (::fsync(fd_) != 0) fail("flush", path_, errno);
  if (::rename(temp_.c_str(), path_.c_str()) != 0) fail("rename a file onto", path_, errno);
  committed_ = true;
  sync_parent_directory(path_);
}

void write_file_atomically(const std::string& path, std::string_view content, mode_t mode) {
  AtomicFile file(path, mode);
  file.write(content);
  file.commit();
}

void sync_parent_directory(const std::string& path) {
  const std::string dir = parent_of(path);
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) fail("open the directory of", path, errno);
  // Some file systems (and /proc-like mounts) refuse fsync on a directory: nothing to make
  // durable there, so EINVAL is not an error.
  const int rc = ::fsync(fd);
  const int err = errno;
  ::close(fd);
  if (rc != 0 && err != EINVAL) fail("flush the directory of", path, err);
}

}  // namespace hvd::files
