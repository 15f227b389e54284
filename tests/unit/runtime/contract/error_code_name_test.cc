// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include <cctype>
#include <set>
#include <string>

#include "hvd/error.h"

using hvd::ErrorCode;

TEST_CASE("error_code_name: every code has its own lower-case name") {
  std::set<std::string> seen;
  for (int i = 0; i <= static_cast<int>(ErrorCode::kInternal); ++i) {
    const std::string name = hvd::error_code_name(static_cast<ErrorCode>(i));
    CAPTURE(i);
    CHECK(name != "unknown");
    CHECK_FALSE(name.empty());
    for (char c : name) CHECK(std::islower(static_cast<unsigned char>(c)));
    CHECK(seen.insert(name).second);
  }
  // hvdrun.torch tells a usage error from a peer's failure by this prefix of the message.
  CHECK(std::string(hvd::error_code_name(ErrorCode::kUsage)) == "usage");
  CHECK(std::string(hvd::error_code_name(static_cast<ErrorCode>(99))) == "unknown");
}
