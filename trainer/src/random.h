// SPDX-License-Identifier: Apache-2.0
#pragma once
// SplitMix64: a tiny generator whose output is fixed by its definition, unlike std's
// distributions (implementation-defined), so weights and sample orders are the same on every
// rank, build and platform.

#include <cmath>
#include <cstdint>

namespace hvd::train {

class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, 1) with 24 bits.
  float next_float() { return static_cast<float>(next() >> 40) * (1.0f / 16777216.0f); }
  /// Uniform in [0, n) (the modulo bias is below 2^-40 for the sizes used here).
  uint64_t below(uint64_t n) { return next() % n; }
  /// Standard normal (Box-Muller).
  float next_normal() {
    const float u1 = 1.0f - next_float();  // (0, 1]: log stays finite
    const float u2 = next_float();
    return std::sqrt(-2.0f * std::log(u1)) * std::cos(6.2831853f * u2);
  }

 private:
  uint64_t state_;
};

}  // namespace hvd::train
