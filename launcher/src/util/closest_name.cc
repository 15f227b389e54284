// SPDX-License-Identifier: Apache-2.0
#include "util/closest_name.h"

#include <algorithm>

namespace hvd::launcher::util {
namespace {

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

std::string closest_name(const std::string& word, const std::vector<std::string>& names) {
  // A two-letter word is one edit from too many names to mean any of them.
  const size_t stem = word.size() - std::min(word.size(), word.find_first_not_of('-'));
  if (stem < 2) return "";
  const size_t allowed = stem <= 4 ? 1 : 2;
  std::string best;
  size_t best_distance = allowed + 1;
  std::vector<std::string> extensions;
  for (const std::string& name : names) {
    const size_t d = edit_distance(word, name);
    if (d < best_distance) {
      best = name;
      best_distance = d;
    }
    if (name.size() > word.size() && name.compare(0, word.size(), word) == 0) {
      extensions.push_back(name);
    }
  }
  if (!best.empty()) return best;
  return extensions.size() == 1 && stem >= 3 ? extensions.front() : "";
}

}  // namespace hvd::launcher::util
