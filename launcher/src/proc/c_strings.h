// SPDX-License-Identifier: Apache-2.0
#pragma once
// argv/envp arrays for execve, built before fork (allocating after fork in a threaded process
// can deadlock).

#include <string>
#include <vector>

namespace hvd::launcher::proc {

/// Pointers to `strings`' characters, then a null: valid while `strings` lives unchanged.
/// execve's parameters are char* const* for C's sake; it never writes through them, hence the
/// const_cast.
inline std::vector<char*> c_strings(const std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (const std::string& s : strings) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

}  // namespace hvd::launcher::proc
