// SPDX-License-Identifier: Apache-2.0
#pragma once
// errno as the transports' errors spell it ("Connection refused").

#include <string>
#include <system_error>

namespace hvd::backends::ring {

inline std::string errno_text(int err) {
  return std::error_code(err, std::generic_category()).message();
}

}  // namespace hvd::backends::ring
