// SPDX-License-Identifier: Apache-2.0
#pragma once
// Checkpoints: the model's shape, the steps done, the weights and the optimizer's momentum, in
// one binary file ending in a checksum. Written through hvd::files::AtomicFile (a fresh mkstemp
// name in the same folder, fsynced, renamed over the old one, folder fsynced), so a crash
// mid-write leaves the previous checkpoint and a symlink planted beside it is never followed.
// Reading trusts nothing in the file: every count is checked against the bytes present before
// anything is allocated.

#include <cstdint>
#include <string>
#include <string_view>
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
/// The checkpoint in `bytes` (a file's whole content; `path` only names it in errors). Checks
/// the magic, the checksum, that the widths are positive and the parameter count is the one
/// they imply, and that the sizes add up to exactly the bytes present. Throws ConfigError.
Checkpoint parse_checkpoint(std::string_view bytes, const std::string& path);
/// The number of parameters of an MLP of `widths` (weights and biases of each layer), or -1
/// when it does not fit in int64.
int64_t mlp_parameter_count(const std::vector<int>& widths);

}  // namespace hvd::train
