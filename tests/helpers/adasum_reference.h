// SPDX-License-Identifier: Apache-2.0
#pragma once
// Horovod's Adasum written out in double, for the tests that compare libhvd's with it
// (unit/runtime/ring/adasum_test.cc, runtime_probe_adasum.cc): pairs of ranks (0,1), (2,3), ...
// combine into (1 - a.b / (2|a|^2)) a + (1 - a.b / (2|b|^2)) b, a coefficient staying 1 where
// its |x|^2 < sqrt(DBL_MIN) = 2^-511; then the pairs' results combine, and so on.

#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

namespace hvd::test {

inline std::vector<double> adasum_pair(const std::vector<double>& a, const std::vector<double>& b) {
  double dot = 0, a_sq = 0, b_sq = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    dot += a[i] * b[i];
    a_sq += a[i] * a[i];
    b_sq += b[i] * b[i];
  }
  const double tiny = std::sqrt(std::numeric_limits<double>::min());
  const double ca = a_sq >= tiny ? 1.0 - dot / (2 * a_sq) : 1.0;
  const double cb = b_sq >= tiny ? 1.0 - dot / (2 * b_sq) : 1.0;
  std::vector<double> out(a.size());
  for (size_t i = 0; i < a.size(); ++i) out[i] = ca * a[i] + cb * b[i];
  return out;
}

/// The Adasum of every rank's vector (`per_rank[r]`; a power-of-two count of them).
inline std::vector<double> adasum_tree(std::vector<std::vector<double>> per_rank) {
  while (per_rank.size() > 1) {
    std::vector<std::vector<double>> next;
    for (size_t k = 0; k < per_rank.size(); k += 2) {
      next.push_back(adasum_pair(per_rank[k], per_rank[k + 1]));
    }
    per_rank = std::move(next);
  }
  return per_rank[0];
}

}  // namespace hvd::test
