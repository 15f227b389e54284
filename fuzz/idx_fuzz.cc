// SPDX-License-Identifier: Apache-2.0
// IDX files (Fashion-MNIST), plain or gzip-compressed, through zlib as hvd-train reads them.
#include "fuzz_harness.h"
#include "idx_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return hvd::fuzz::expect_only_hvd_errors(
      [&] { hvd::train::read_idx(hvd::fuzz::as_file(data, size)); });
}
