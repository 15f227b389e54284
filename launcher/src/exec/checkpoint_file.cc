// SPDX-License-Identifier: Apache-2.0
#include "exec/checkpoint_file.h"

#include <fcntl.h>
#include <unistd.h>

#include "hvd/str_cat.h"

namespace hvd::launcher::exec {

std::string checkpoint_file_path(const std::string& run_id, int rank) {
  std::string path = str_cat("/dev/shm/hvd-", run_id, "-checkpoint");
  if (rank >= 0) path = str_cat(path, ".", rank);
  return path;
}

bool create_checkpoint_file(const std::string& path) noexcept {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  ::close(fd);
  return true;
}

void remove_checkpoint_file(const std::string& path) noexcept { ::unlink(path.c_str()); }

}  // namespace hvd::launcher::exec
