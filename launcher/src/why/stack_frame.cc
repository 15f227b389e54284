// SPDX-License-Identifier: Apache-2.0
#include "why/stack_frame.h"

namespace hvd::launcher::why {

std::string Frame::label() const {
  const std::string quoted = "`" + function + "`";
  if (file.empty()) return quoted;
  const size_t slash = file.rfind('/');
  const std::string base = slash == std::string::npos ? file : file.substr(slash + 1);
  return quoted + " (" + base + (line > 0 ? ":" + std::to_string(line) : std::string()) + ")";
}

const ThreadStack* main_thread(const std::vector<ThreadStack>& threads) {
  for (const ThreadStack& t : threads) {
    if (t.main) return &t;
  }
  return threads.empty() ? nullptr : &threads.front();
}

}  // namespace hvd::launcher::why
