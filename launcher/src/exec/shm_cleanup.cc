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
// "hvd-" + run id + "-" + a pid of up to 20 digits + "-" + NUL.
constexpr size_t kMaxPrefix = kMaxRunId + 32;

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

// Appends `n` (> 0) in decimal; no allocation, no stdio.
void append_decimal(char* text, long n) noexcept {
  char digits[24];
  int len = 0;
  for (; n > 0 && len < 23; n /= 10) digits[len++] = static_cast<char>('0' + n % 10);
  char* end = text + std::strlen(text);
  while (len > 0) *end++ = digits[--len];
  *end = '\0';
}

// Removes DIR/<prefix>* (regular files of this uid, nothing followed); returns the count.
int remove_with_prefix(const char* prefix, const char* dir) noexcept {
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
  char prefix[kMaxPrefix] = "hvd-";
  std::strcat(prefix, run_id);
  std::strcat(prefix, "-");
  return remove_with_prefix(prefix, dir);
}

int remove_process_segments(const char* run_id, long pid, const char* dir) noexcept {
  if (run_id == nullptr || !valid_run_id(run_id) || pid <= 0) return 0;
  char prefix[kMaxPrefix] = "hvd-";
  std::strcat(prefix, run_id);
  std::strcat(prefix, "-");
  append_decimal(prefix, pid);
  std::strcat(prefix, "-");
  return remove_with_prefix(prefix, dir);
}

}  // namespace hvd::launcher::exec
