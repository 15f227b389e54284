// SPDX-License-Identifier: Apache-2.0
#include "timeline/timeline_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "files/atomic_file.h"
#include "hvd/error.h"
#include "hvd/str_cat.h"
#include "timeline_merge/timeline_format.h"

namespace hvd::core {
namespace {

[[noreturn]] void throw_io(const std::string& what, const std::string& path) {
  throw ConfigError(str_cat("timeline: ", what, " ", path, ": ", std::strerror(errno)));
}

}  // namespace

TimelineFile::TimelineFile(const std::string& path, uint32_t rank) : path_(path) {
  namespace fmt = timeline_format;
  char header[fmt::kFileHeaderBytes];
  std::memcpy(header, fmt::kFileMagic, sizeof(fmt::kFileMagic));
  std::memcpy(header + 8, &rank, sizeof(rank));
  std::memcpy(header + 12, &fmt::kFormatVersion, sizeof(fmt::kFormatVersion));
  // Built under a fresh mkstemp name (O_EXCL: a symlink planted beside it is never followed)
  // and renamed at once; from then on the file only grows in place. The AtomicFile's
  // descriptor closes with it, so the file keeps a duplicate.
  files::AtomicFile file(path);
  file.write(std::string_view(header, sizeof(header)));
  file.commit();
  fd_ = ::fcntl(file.fd(), F_DUPFD_CLOEXEC, 0);
  if (fd_ < 0) throw_io("cannot keep open", path);
  end_ = sizeof(header);
}

TimelineFile::~TimelineFile() { close(); }

void TimelineFile::append(std::string_view records) {
  HVD_CHECK(fd_ >= 0, "append after close: ", path_);
  size_t done = 0;
  while (done < records.size()) {
    const ssize_t n = ::pwrite(fd_, records.data() + done, records.size() - done,
                               static_cast<off_t>(end_ + done));
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) errno = EIO;
    if (n <= 0) throw_io("cannot write", path_);
    done += static_cast<size_t>(n);
  }
  end_ += records.size();
}

void TimelineFile::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

}  // namespace hvd::core
