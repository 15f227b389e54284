// SPDX-License-Identifier: Apache-2.0
#pragma once
// Small text helpers shared by the launcher's parsers (CPU lists, GPU ids, task counts, hosts).

#include <algorithm>
#include <charconv>
#include <string_view>
#include <utility>

namespace hvd::launcher::util {

/// `s` without leading and trailing spaces, tabs and line ends.
inline std::string_view trim(std::string_view s) {
  const auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

/// Whether `s` begins with `prefix`.
inline bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
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

/// Calls fn(item) for every comma-separated item of `s`, in order, empty items included (so that
/// callers can refuse "a,,b").
template <typename Fn>
void for_each_item(std::string_view s, Fn fn) {
  size_t start = 0;
  while (start <= s.size()) {
    const size_t comma = std::min(s.find(',', start), s.size());
    fn(s.substr(start, comma - start));
    start = comma + 1;
  }
}

/// The bounds of a list item "N" or "N-M" (N <= M, both at most `max`), as in CPU and GPU lists;
/// {-1, -1} when it is neither.
inline std::pair<int, int> parse_range(std::string_view item, int max) {
  const size_t dash = item.find('-');
  const int first = parse_decimal(item.substr(0, dash), max);
  const int last =
      dash == std::string_view::npos ? first : parse_decimal(item.substr(dash + 1), max);
  if (first < 0 || last < first) return {-1, -1};
  return {first, last};
}

}  // namespace hvd::launcher::util
