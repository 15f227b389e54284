// SPDX-License-Identifier: Apache-2.0
// hvd-train checkpoints. A checksum guards the content, which random bytes never match; so each
// input is parsed as it is, and once more with its last 8 bytes replaced by the right checksum,
// which lets the fuzzer reach the counts and sizes behind it.
#include <cstring>
#include <string>

#include "checkpoint.h"
#include "fuzz_harness.h"

namespace {
// The checkpoint's checksum (FNV-1a over everything before it), as checkpoint.cc computes it.
uint64_t checksum(const char* p, size_t n) {
  uint64_t h = 0xCBF29CE484222325ull;
  for (size_t i = 0; i < n; ++i) h = (h ^ static_cast<unsigned char>(p[i])) * 0x100000001B3ull;
  return h;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string bytes(hvd::fuzz::as_text(data, size));
  hvd::fuzz::expect_only_hvd_errors([&] { hvd::train::parse_checkpoint(bytes, "fuzz.ckpt"); });
  if (bytes.size() >= sizeof(uint64_t)) {
    const size_t body = bytes.size() - sizeof(uint64_t);
    const uint64_t sum = checksum(bytes.data(), body);
    std::memcpy(&bytes[body], &sum, sizeof(sum));
    hvd::fuzz::expect_only_hvd_errors([&] { hvd::train::parse_checkpoint(bytes, "fuzz.ckpt"); });
  }
  return 0;
}
