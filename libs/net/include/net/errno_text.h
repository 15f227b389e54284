// SPDX-License-Identifier: Apache-2.0
#pragma once
// errno as the sockets' and transports' errors spell it ("Connection refused").

#include <string>
#include <system_error>

namespace hvd::net {

inline std::string errno_text(int err) {
  return std::error_code(err, std::generic_category()).message();
}

}  // namespace hvd::net
