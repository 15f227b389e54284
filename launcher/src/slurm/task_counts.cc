// SPDX-License-Identifier: Apache-2.0
#include "slurm/task_counts.h"

#include <algorithm>
#include <climits>

#include "hvd/error.h"
#include "util/text.h"

namespace hvd::launcher::slurm {
namespace {

// One entry per node, and hostlists stop at 65536 nodes; this also stops "1(x2000000000)" from
// allocating gigabytes.
constexpr size_t kMaxEntries = 65536;

using util::trim;

// A whole-string non-negative decimal that fits an int; -1 otherwise.
int parse_count(std::string_view s) { return util::parse_decimal(s, INT_MAX); }

[[noreturn]] void fail_counts(std::string_view text, const std::string& what) {
  throw SchedulerError(str_cat("per-node count list '", text, "': ", what));
}

// Appends the counts of one entry ("2(x3)" or "4") of `text`.
void expand_entry(std::string_view text, std::string_view entry, std::vector<int>& out) {
  const size_t paren = entry.find('(');
  const int count = parse_count(entry.substr(0, paren));
  int repeat = 1;
  if (paren != std::string_view::npos) {
    const std::string_view tail = entry.substr(paren);  // "(x3)"
    const bool framed = tail.size() >= 4 && tail.substr(0, 2) == "(x" && tail.back() == ')';
    repeat = framed ? parse_count(tail.substr(2, tail.size() - 3)) : -1;
  }
  if (count < 0 || repeat < 1) {
    fail_counts(text,
                str_cat("entry '", entry, "' is not c or c(x#) with decimal c >= 0 and # >= 1"));
  }
  if (out.size() + static_cast<size_t>(repeat) > kMaxEntries) {
    fail_counts(text, str_cat("more than ", kMaxEntries, " entries"));
  }
  out.insert(out.end(), static_cast<size_t>(repeat), count);
}

}  // namespace

std::vector<int> expand_task_counts(std::string_view text) {
  const std::string_view body = trim(text);
  std::vector<int> counts;
  if (body.empty()) return counts;
  util::for_each_item(body, [&](std::string_view entry) { expand_entry(text, entry, counts); });
  return counts;
}

std::string compress_task_counts(const std::vector<int>& counts) {
  std::string out;
  for (size_t i = 0; i < counts.size();) {
    HVD_CHECK(counts[i] >= 0, "negative per-node count ", counts[i]);
    size_t j = i + 1;
    while (j < counts.size() && counts[j] == counts[i]) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(counts[i]);
    if (j - i > 1) out += str_cat("(x", j - i, ")");
    i = j;
  }
  return out;
}

}  // namespace hvd::launcher::slurm
