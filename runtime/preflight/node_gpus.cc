// SPDX-License-Identifier: Apache-2.0
#include "preflight/node_gpus.h"

#include <filesystem>

namespace hvd::preflight {

int count_node_gpus(const std::string& dir) {
  std::error_code ec;
  std::filesystem::directory_iterator it(dir, ec);
  if (ec) return -1;
  int count = 0;
  for (const auto& entry : it) {
    count += entry.is_directory(ec) ? 1 : 0;
  }
  return count;
}

}  // namespace hvd::preflight
