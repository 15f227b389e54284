// SPDX-License-Identifier: Apache-2.0
#include "diag/python_dump.h"

#include <fcntl.h>
#include <unistd.h>

#include "files/owned_file.h"
#include "hvd/error.h"
#include "hvd/why_protocol.h"
#include "net/socket.h"

namespace hvd::diag {

std::string take_python_dump(const std::string& why_dir, int rank) {
  if (why_dir.empty()) return {};
  const std::string path = why_dir + "/" + why::kPythonDumpPrefix + std::to_string(rank);
  std::string text;
  try {
    text = files::read_owned_file(path, size_t{256} << 10);
  } catch (const Error&) {
    return {};  // no Python here, or not a file we trust: the rank reports its native stack
  }
  // Only this user can create names in HVD_WHY_DIR (0700), so the file just read is the one
  // emptied here.
  net::Fd fd(open(path.c_str(), O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (fd.valid()) (void)ftruncate(fd.get(), 0);
  return text;
}

}  // namespace hvd::diag
