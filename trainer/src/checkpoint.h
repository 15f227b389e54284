// SPDX-License-Identifier: Apache-2.0
#pragma once
// Checkpoints: the model's shape, the steps done, the weights and the optimizer's momentum, in
// one binary file ending in a checksum. Written to a temporary file in the same folder, flushed
// to disk and renamed over the old one, so a crash mid-write leaves the previous checkpoint.

#include <cstdint>
#include <string>
#include <vector>

namespace hvd::train {

struct Checkpoint {
  std::vector<int> widths;  // input, hidden..., classes
  int64_t step = 0;         // global steps completed
  std::vector<float> params;
  std::vector<float> momentum;
};

/// Throws ConfigError naming the path when it cannot be written.
void write_checkpoint(const std::string& path, const Checkpoint& c);
/// Throws ConfigError naming the path when it is missing, truncated or corrupt.
Checkpoint read_checkpoint(const std::string& path);

}  // namespace hvd::train
