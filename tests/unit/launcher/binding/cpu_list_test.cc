// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "binding/cpu_list.h"
#include "hvd/error.h"

namespace binding = hvd::launcher::binding;

namespace {
// The message parse_cpu_list() throws for `text`, or "" if it accepts it.
std::string parse_error(const std::string& text) {
  try {
    binding::parse_cpu_list(text);
  } catch (const hvd::ConfigError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("cpu_list: format compacts runs, sorts and drops duplicates") {
  CHECK(binding::format_cpu_list({}) == "");
  CHECK(binding::format_cpu_list({5}) == "5");
  CHECK(binding::format_cpu_list({3, 0, 1, 2, 8, 10, 11}) == "0-3,8,10-11");
  CHECK(binding::format_cpu_list({1, 1, 2, 2}) == "1-2");
  CHECK(binding::format_cpu_list({0, 2, 4}) == "0,2,4");
  CHECK(binding::format_cpu_list({7, 6}) == "6-7");
  CHECK(binding::format_cpu_list({0, 1, 2, 3, 64, 65, 66, 67}) == "0-3,64-67");
  CHECK_THROWS_AS(binding::format_cpu_list({-1, 2}), hvd::InternalError);
}

TEST_CASE("cpu_list: parse accepts the kernel's forms") {
  CHECK(binding::parse_cpu_list("0-3,8") == std::vector<int>{0, 1, 2, 3, 8});
  CHECK(binding::parse_cpu_list("0-3,8,10-11\n") == std::vector<int>{0, 1, 2, 3, 8, 10, 11});
  CHECK(binding::parse_cpu_list("5") == std::vector<int>{5});
  CHECK(binding::parse_cpu_list("7-7") == std::vector<int>{7});
  CHECK(binding::parse_cpu_list("3,1,1,0-1") == std::vector<int>{0, 1, 3});
  CHECK(binding::parse_cpu_list("").empty());
  CHECK(binding::parse_cpu_list(" \n").empty());
}

TEST_CASE("cpu_list: parse inverts format") {
  const std::vector<std::vector<int>> lists = {
      {}, {0}, {0, 1}, {0, 2}, {1, 2, 3, 9, 10, 20}, {0, 1, 2, 3, 64, 65, 66, 67}, {8191}};
  for (const std::vector<int>& cpus : lists) {
    CAPTURE(binding::format_cpu_list(cpus));
    CHECK(binding::parse_cpu_list(binding::format_cpu_list(cpus)) == cpus);
  }
}

TEST_CASE("cpu_list: malformed text is a ConfigError naming it") {
  for (const std::string bad : {"a", "1-", "-1", "3-1", "1,,2", "1,", ",1", "1-2-3", "+1", "1 ,2",
                                "0x1", "99999999999", "0-70000"}) {
    CAPTURE(bad);
    const std::string message = parse_error(bad);
    CHECK(message.find("cpu list '" + bad + "'") != std::string::npos);
  }
  CHECK(parse_error("0-2,x") ==
        "cpu list '0-2,x': 'x' is not a CPU number or an ascending range "
        "N-M (0..65535)");
}
