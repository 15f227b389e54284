// SPDX-License-Identifier: Apache-2.0
#pragma once
// Reads IDX files (the MNIST format: a big-endian magic whose third byte is the element type and
// fourth the number of dimensions, then one big-endian uint32 per dimension, then the data),
// gzip-compressed or not, through zlib. Only unsigned bytes (type 0x08), which is what
// Fashion-MNIST ships.

#include <cstdint>
#include <string>
#include <vector>

namespace hvd::train {

struct IdxArray {
  std::vector<int64_t> dims;
  std::vector<uint8_t> data;  // row-major, product(dims) bytes
};

/// Throws ConfigError naming the file when it is missing, truncated or not an IDX of bytes.
IdxArray read_idx(const std::string& path);

}  // namespace hvd::train
