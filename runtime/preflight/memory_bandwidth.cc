// SPDX-License-Identifier: Apache-2.0
#include "preflight/memory_bandwidth.h"

#include <algorithm>
#include <vector>

namespace hvd::preflight {

double triad_gbps(std::chrono::milliseconds budget, int array_mib) {
  using Clock = std::chrono::steady_clock;
  const size_t n = static_cast<size_t>(array_mib) * (1 << 20) / sizeof(double);
  std::vector<double> a(n, 0.0), b(n, 1.0), c(n, 2.0);  // touched here, so no page faults later
  const double scalar = 3.0;
  double best_seconds = 1e30;
  const Clock::time_point end = Clock::now() + budget;
  do {
    const Clock::time_point start = Clock::now();
    for (size_t i = 0; i < n; ++i) a[i] = b[i] + scalar * c[i];
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    best_seconds = std::min(best_seconds, seconds);
    std::swap(b, a);  // keeps the compiler from dropping passes whose result is never read
  } while (Clock::now() < end);
  volatile double sink = b[n / 2];  // and from dropping the last one
  (void)sink;
  return 3.0 * sizeof(double) * static_cast<double>(n) / best_seconds / 1e9;
}

}  // namespace hvd::preflight
