// SPDX-License-Identifier: Apache-2.0
// weights_compare A B [TOLERANCE]: compares the weights of two hvd-train checkpoints
// (--save-weights or --checkpoint files). Prints the largest absolute difference; exits 0 when
// the shapes match and every weight differs by at most TOLERANCE (default 0: bit-identical),
// 1 when not, 2 on bad usage or unreadable files.

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "checkpoint.h"
#include "hvd/error.h"

int main(int argc, char** argv) {
  if (argc != 3 && argc != 4) {
    std::fprintf(stderr, "usage: weights_compare A B [TOLERANCE]\n");
    return 2;
  }
  const double tolerance = argc == 4 ? std::atof(argv[3]) : 0.0;
  try {
    const hvd::train::Checkpoint a = hvd::train::read_checkpoint(argv[1]);
    const hvd::train::Checkpoint b = hvd::train::read_checkpoint(argv[2]);
    if (a.widths != b.widths || a.params.size() != b.params.size()) {
      std::printf("weights_compare: different model shapes\n");
      return 1;
    }
    double worst = 0;
    size_t worst_at = 0;
    size_t differing = 0;
    for (size_t i = 0; i < a.params.size(); ++i) {
      const double d = std::fabs(static_cast<double>(a.params[i]) - b.params[i]);
      if (std::memcmp(&a.params[i], &b.params[i], sizeof(float)) != 0) ++differing;
      if (d > worst) {
        worst = d;
        worst_at = i;
      }
    }
    std::printf(
        "weights_compare: %zu weights, %zu differ, max |a-b| = %.3g (weight %zu), "
        "tolerance %.3g, steps %lld and %lld\n",
        a.params.size(), differing, worst, worst_at, tolerance, static_cast<long long>(a.step),
        static_cast<long long>(b.step));
    const bool ok = tolerance == 0 ? differing == 0 : worst <= tolerance;
    return ok && a.step == b.step ? 0 : 1;
  } catch (const hvd::Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
}
