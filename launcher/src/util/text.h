// SPDX-License-Identifier: Apache-2.0
#pragma once
// Small text helpers shared by the launcher's parsers (CPU lists, GPU ids, task counts, hosts).

#include <charconv>
#include <string_view>

namespace hvd::launcher::util {

/// `s` without leading and trailing spaces, tabs and line ends.
inline std::string_view trim(std::string_view s) {
  const auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

/// The value of `s` when all of it is a non-negative decimal no larger than `max`; -1 otherwise.
/// No sign, no spaces: parsers decide what may surround a number.
inline int parse_decimal(std::string_view s, int max) {
  if (s.empty() || s.front() < '0' || s.front() > '9') return -1;  // from_chars takes a sign
  int value = -1;
  const char* end = s.data() + s.size();
  const auto [ptr, ec] = std::from_chars(s.data(), end, value);
  if (ec != std::errc() || ptr != end) return -1;
  return value <= max ? value : -1;
}

}  // namespace hvd::launcher::util
