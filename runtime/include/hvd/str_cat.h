// SPDX-License-Identifier: Apache-2.0
#pragma once
// str_cat: builds a message from any streamable pieces, for error texts.

#include <sstream>
#include <string>

namespace hvd {
template <typename... Parts>
std::string str_cat(const Parts&... parts) {
  std::ostringstream out;
  (out << ... << parts);
  return out.str();
}
}  // namespace hvd
