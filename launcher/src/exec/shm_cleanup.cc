// SPDX-License-Identifier: Apache-2.0
#include "exec/shm_cleanup.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>

namespace hvd::launcher::exec {
namespace {

constexpr size_t kMaxRunId = 64;

bool id_char(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' ||
         c == '_';
}

// getdents64's record; glibc declares no such struct for the raw syscall.
struct LinuxDirent64 {
  ino64_t d_ino;
  off64_t d_off;
  unsigned short d_reclen;
  unsigned char d_type;
  char d_name[1];
};

}  // namespace

bool valid_run_id(std::string_view run_id) noexcept {
  if (run_id.empty() || run_id.size() > kMaxRunId) return false;
  for (char c : run_id) {
    if (!id_char(c)) return false;
  }
  return true;
}

int remove_run_segments(const char* run_id, const char* dir) noexcept {
  if (run_id == nullptr || !valid_run_id(run_id)) return 0;
  char prefix[kMaxRunId + 8] = "hvd-";
  std::strcat(prefix, run_id);
  std::strcat(prefix, "-");
  const size_t prefix_len = std::strlen(prefix);
  const int dfd = ::open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
  if (dfd < 0) return 0;
  const uid_t me = geteuid();
  int removed = 0;
  alignas(8) char buf[8192];
  for (;;) {
    const long n = syscall(SYS_getdents64, dfd, buf, sizeof(buf));
    if (n <= 0) break;
    for (long off = 0; off < n;) {
      const auto* d = reinterpret_cast<const LinuxDirent64*>(buf + off);
      off += d->d_reclen;
      if (std::strncmp(d->d_name, prefix, prefix_len) != 0) continue;
      struct stat st {};
      if (fstatat(dfd, d->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
      if (!S_ISREG(st.st_mode) || st.st_uid != me) continue;
      if (unlinkat(dfd, d->d_name, 0) == 0) ++removed;
    }
  }
  ::close(dfd);
  return removed;
}

}  // namespace hvd::launcher::exec
