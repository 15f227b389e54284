// SPDX-License-Identifier: Apache-2.0
#include "slurm/hostlist.h"

#include <algorithm>
#include <charconv>
#include <cstdint>

#include "hvd/error.h"
#include "util/text.h"

namespace hvd::launcher::slurm {
namespace {

// Slurm's own cap on one range (MAX_RANGE in hostlist.c). We also cap the whole list, which Slurm
// does not: no cluster has more nodes, and it stops "a[0-60000]b[0-60000]" from eating memory.
constexpr std::uint64_t kMaxHosts = 65536;
// Linux host names are at most 64 bytes and DNS names 253; a longer one is a mistake, and the cap
// bounds the memory of the whole list at kMaxHosts * kMaxNameLength.
constexpr size_t kMaxNameLength = 255;
// Numbers of up to 19 digits always fit in 64 bits; longer digit runs stay literal text.
constexpr size_t kMaxDigits = 19;

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

// The text is quoted whole when short; a long one (up to 128 KiB in a variable) is cut so the
// error stays one readable line.
[[noreturn]] void fail_hostlist(std::string_view text, const std::string& what) {
  constexpr size_t kQuoted = 100;
  throw SchedulerError(
      str_cat("hostlist '", text.substr(0, kQuoted),
              text.size() > kQuoted ? str_cat("...' (", text.size(), " chars)") : std::string("'"),
              ": ", what));
}

// Splits the text into items at separators outside brackets, checking that brackets pair up.
// Each comma-separated piece must hold at least one item; whitespace alone separates loosely.
std::vector<std::string_view> split_items(std::string_view text) {
  std::vector<std::string_view> items;
  size_t start = 0;
  size_t open_at = std::string_view::npos;  // offset of the '[' we are inside, if any
  size_t items_in_piece = 0;
  bool saw_comma = false;
  for (size_t i = 0; i <= text.size(); ++i) {
    const bool at_end = i == text.size();
    const char c = at_end ? '\0' : text[i];
    if (open_at != std::string_view::npos) {
      if (at_end) fail_hostlist(text, str_cat("'[' at offset ", open_at, " is never closed"));
      if (c == '[')
        fail_hostlist(text, str_cat("'[' at offset ", i, " is nested inside another '['"));
      if (c == ']') open_at = std::string_view::npos;
      continue;
    }
    if (c == '[') open_at = i;
    if (c == ']') fail_hostlist(text, str_cat("']' at offset ", i, " has no matching '['"));
    const bool comma = c == ',';
    if (!at_end && !comma && !is_space(c)) continue;
    if (i > start) {
      items.push_back(text.substr(start, i - start));
      ++items_in_piece;
    }
    start = i + 1;
    if (!comma && !at_end) continue;
    if (items_in_piece == 0 && (comma || saw_comma)) {
      fail_hostlist(text, str_cat("empty item before offset ", i, " (two separators in a row?)"));
    }
    items_in_piece = 0;
    saw_comma = saw_comma || comma;
  }
  return items;
}

// `value` in decimal, zero-padded to as many digits as `lower_bound` has (Slurm's width rule).
std::string format_like(std::uint64_t value, std::string_view lower_bound) {
  std::string digits = std::to_string(value);
  if (digits.size() < lower_bound.size()) digits.insert(0, lower_bound.size() - digits.size(), '0');
  return digits;
}

// Appends the names of one range ("08-11" or "7") of `text` to `out`. `values` counts the values
// of every bracket group of the whole text so far: each group is expanded before the product
// is, so the cap on hosts alone let a short list of many groups allocate kMaxHosts values per
// group (a 901-byte SLURM_JOB_NODELIST took 210 MB).
void expand_range(std::string_view text, std::string_view range, std::vector<std::string>& out,
                  std::uint64_t& values) {
  const auto parse_bound = [&](std::string_view num) {
    if (!num.empty() && num.front() == '-') {
      fail_hostlist(text, str_cat("range '", range, "': negative numbers are not allowed"));
    }
    std::uint64_t value = 0;
    const char* end = num.data() + num.size();
    const bool digit_first = !num.empty() && is_digit(num.front());  // from_chars takes '+'
    const auto [ptr, ec] = std::from_chars(num.data(), end, value);
    if (!digit_first || ec != std::errc() || ptr != end) {
      fail_hostlist(text, str_cat("range '", range, "' is not N or N-M with decimal N <= M"));
    }
    return value;
  };
  const size_t dash = range.find('-', 1);  // a leading '-' is a sign, reported as negative
  const std::string_view lo_text = range.substr(0, dash);
  const std::uint64_t lo = parse_bound(lo_text);
  const std::uint64_t hi =
      dash == std::string_view::npos ? lo : parse_bound(range.substr(dash + 1));
  if (hi < lo) fail_hostlist(text, str_cat("range '", range, "' is descending"));
  if (hi - lo >= kMaxHosts || out.size() + (hi - lo) >= kMaxHosts) {
    fail_hostlist(text, str_cat("range '", range, "' makes more than ", kMaxHosts, " hosts"));
  }
  if (values + (hi - lo) >= kMaxHosts) {
    fail_hostlist(text,
                  str_cat("more than ", kMaxHosts, " hosts (its bracket groups hold more than ",
                          kMaxHosts, " numbers in all)"));
  }
  values += hi - lo + 1;
  for (std::uint64_t v = lo;; ++v) {
    out.push_back(format_like(v, lo_text));
    if (v == hi) break;  // not `v <= hi` in the loop head: hi may be the largest uint64
  }
}

// The values of one bracket group's contents ("1-3,007").
std::vector<std::string> expand_group(std::string_view text, std::string_view group,
                                      std::uint64_t& values_so_far) {
  if (group.empty()) fail_hostlist(text, "empty brackets '[]'");
  std::vector<std::string> values;
  util::for_each_item(
      group, [&](std::string_view range) { expand_range(text, range, values, values_so_far); });
  return values;
}

// One item split at its brackets: texts[0] groups[0] texts[1] ... groups[n-1] texts[n].
struct Item {
  std::vector<std::string_view> texts;
  std::vector<std::vector<std::string>> groups;
};

Item parse_item(std::string_view text, std::string_view item, std::uint64_t& values_so_far) {
  Item parsed;
  size_t start = 0;
  for (size_t open = item.find('['); open != std::string_view::npos; open = item.find('[', start)) {
    const size_t close = item.find(']', open);  // split_items() checked that it exists
    parsed.texts.push_back(item.substr(start, open - start));
    parsed.groups.push_back(
        expand_group(text, item.substr(open + 1, close - open - 1), values_so_far));
    start = close + 1;
  }
  parsed.texts.push_back(item.substr(start));
  return parsed;
}

// Appends the item's Cartesian product in Slurm's order. hostlist.c expands the last group as
// the host range and each earlier group, right to left, as an outer loop over the prefix; so
// the last group varies fastest, then the first, the second, ... and the last-but-one slowest.
void append_product(std::string_view text, const Item& item, std::vector<std::string>& out) {
  const size_t n = item.groups.size();
  std::uint64_t count = 1;
  for (const auto& values : item.groups) {
    count *= values.size();  // each factor is <= kMaxHosts, so checking as we go cannot overflow
    if (out.size() + count > kMaxHosts)
      fail_hostlist(text, str_cat("more than ", kMaxHosts, " hosts"));
  }
  std::vector<size_t> fastest_first;
  if (n > 0) fastest_first.push_back(n - 1);
  for (size_t g = 0; g + 1 < n; ++g) fastest_first.push_back(g);
  std::vector<size_t> index(n, 0);
  for (std::uint64_t k = 0; k < count; ++k) {
    std::string name(item.texts[0]);
    for (size_t g = 0; g < n; ++g) name.append(item.groups[g][index[g]]).append(item.texts[g + 1]);
    if (name.size() > kMaxNameLength) {
      fail_hostlist(text, str_cat("host name '", name.substr(0, 40), "...' is longer than ",
                                  kMaxNameLength, " characters"));
    }
    out.push_back(std::move(name));
    for (const size_t g : fastest_first) {
      if (++index[g] < item.groups[g].size()) break;
      index[g] = 0;
    }
  }
}

// A host name as prefix + trailing decimal number, the unit that compress_hostlist() groups.
struct NumberedHost {
  std::string_view prefix;
  std::string_view digits;  // empty: the name has no usable number and is written as is
  std::uint64_t value = 0;
};

NumberedHost split_number(std::string_view host) {
  size_t start = host.size();
  while (start > 0 && is_digit(host[start - 1])) --start;
  NumberedHost split{host, {}, 0};
  if (start == host.size() || host.size() - start > kMaxDigits) return split;
  split.prefix = host.substr(0, start);
  split.digits = host.substr(start);
  std::from_chars(split.digits.data(), split.digits.data() + split.digits.size(), split.value);
  return split;
}

// "001-003,007" for hosts that share a prefix: ascending runs that keep each name's padding.
std::string compress_runs(const std::vector<NumberedHost>& hosts, size_t begin, size_t end) {
  std::string out;
  for (size_t i = begin; i < end;) {
    size_t j = i + 1;
    while (j < end && j - i < kMaxHosts && hosts[j].value == hosts[j - 1].value + 1 &&
           format_like(hosts[j].value, hosts[i].digits) == hosts[j].digits) {
      ++j;
    }
    if (!out.empty()) out += ',';
    out.append(hosts[i].digits);
    if (j - i > 1) out.append("-").append(hosts[j - 1].digits);
    i = j;
  }
  return out;
}

}  // namespace

std::vector<std::string> expand_hostlist(std::string_view text) {
  std::vector<std::string> hosts;
  std::uint64_t group_values = 0;
  for (const std::string_view item : split_items(text)) {
    append_product(text, parse_item(text, item, group_values), hosts);
  }
  return hosts;
}

std::string compress_hostlist(const std::vector<std::string>& hosts) {
  std::vector<NumberedHost> split;
  split.reserve(hosts.size());
  for (const std::string& host : hosts) {
    HVD_CHECK(!host.empty() && host.find_first_of("[], \t\n") == std::string::npos, "host name '",
              host, "' cannot be written in a hostlist");
    split.push_back(split_number(host));
  }
  std::string out;
  for (size_t i = 0; i < split.size();) {
    size_t j = i + 1;
    while (!split[i].digits.empty() && j < split.size() && !split[j].digits.empty() &&
           split[j].prefix == split[i].prefix) {
      ++j;
    }
    if (!out.empty()) out += ',';
    if (j - i == 1) {
      out += hosts[i];
    } else {
      out.append(split[i].prefix).append("[").append(compress_runs(split, i, j)).append("]");
    }
    i = j;
  }
  return out;
}

}  // namespace hvd::launcher::slurm
