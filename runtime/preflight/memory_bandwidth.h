// SPDX-License-Identifier: Apache-2.0
#pragma once
// A quick STREAM-like memory bandwidth figure: the triad a[i] = b[i] + s * c[i] over arrays well
// beyond the caches, repeated for a fixed time, best pass counted as STREAM does (24 bytes per
// element).

#include <chrono>

namespace hvd::preflight {

/// GB/s of the best triad pass within `budget` (at least one pass). Allocates 3 x `array_mib`.
double triad_gbps(std::chrono::milliseconds budget, int array_mib = 32);

}  // namespace hvd::preflight
