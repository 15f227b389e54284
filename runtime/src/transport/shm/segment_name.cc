// SPDX-License-Identifier: Apache-2.0
#include "transport/shm/segment_name.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <functional>
#include <random>
#include <sstream>

namespace hvd::backends::ring {

std::string pid_namespace() {
  char buf[128] = {};
  const ssize_t n = readlink("/proc/self/ns/pid", buf, sizeof(buf) - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string("-");
}

std::string name_safe(const std::string& id) {
  const bool ok = !id.empty() && id.size() <= 64 && std::all_of(id.begin(), id.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_';
  });
  return ok ? id : "norun";
}

std::string segment_name(const std::string& run_id, const std::string& scope, int rank) {
  std::random_device rd;
  std::ostringstream name;
  name << "/hvd-" << name_safe(run_id) << "-" << getpid() << "-" << std::hex
       << std::hash<std::string>{}(scope) << "-" << std::dec << rank << "-" << std::hex << rd();
  return name.str();
}

}  // namespace hvd::backends::ring
