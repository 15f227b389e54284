// SPDX-License-Identifier: Apache-2.0
#include "proc/checkpoint_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>

#include "auth/run_secret.h"
#include "hvd/str_cat.h"

namespace hvd::launcher::proc {

// 128 bits: a name nobody guesses before the file exists.
constexpr size_t kTagBytes = 16;

std::string checkpoint_file_path(const std::string& run_id, int rank) {
  std::string path = str_cat("/dev/shm/hvd-", run_id, "-checkpoint");
  if (rank >= 0) path = str_cat(path, ".", rank);
  return str_cat(path, "-", auth::random_hex(kTagBytes));
}

bool create_checkpoint_file(const std::string& path) noexcept {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd >= 0) {
    ::close(fd);
    return true;
  }
  if (errno != EEXIST) return false;
  // A second notice finds the file of the first; anything else there is not ours to vouch for.
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == ::geteuid();
}

void remove_checkpoint_file(const std::string& path) noexcept { ::unlink(path.c_str()); }

}  // namespace hvd::launcher::proc
