// SPDX-License-Identifier: Apache-2.0
#include "idx_reader.h"

#include <zlib.h>

#include <algorithm>
#include <memory>

#include "hvd/error.h"
#include "hvd/str_cat.h"

namespace hvd::train {
namespace {

constexpr int kTypeUnsignedByte = 0x08;
constexpr int64_t kMaxBytes = int64_t{1} << 32;  // a sanity bound against corrupt headers
constexpr size_t kReadChunk = size_t{1} << 20;  // vector growth keeps the copies linear

struct GzCloser {
  void operator()(gzFile_s* f) const { gzclose(f); }
};
using GzFile = std::unique_ptr<gzFile_s, GzCloser>;

// Reads exactly `bytes` (gzread takes an unsigned int count, so large reads go in pieces).
void read_exact(gzFile f, const std::string& path, void* out, size_t bytes) {
  auto* p = static_cast<unsigned char*>(out);
  while (bytes > 0) {
    const unsigned chunk = static_cast<unsigned>(std::min<size_t>(bytes, 1u << 30));
    const int got = gzread(f, p, chunk);
    if (got <= 0) {
      int err = 0;
      const char* msg = gzerror(f, &err);
      throw ConfigError(str_cat("hvd-train: ", path, ": truncated or unreadable IDX file",
                                err != Z_OK ? str_cat(" (", msg, ")") : std::string()));
    }
    p += got;
    bytes -= static_cast<size_t>(got);
  }
}

uint32_t big_endian(const unsigned char* b) {
  return (uint32_t{b[0]} << 24) | (uint32_t{b[1]} << 16) | (uint32_t{b[2]} << 8) | b[3];
}

}  // namespace

IdxArray read_idx(const std::string& path) {
  // gzopen reads plain files transparently, so an uncompressed IDX works too.
  GzFile f(gzopen(path.c_str(), "rb"));
  if (!f)
    throw ConfigError(str_cat("hvd-train: cannot open ", path,
                              " (Debian package dataset-fashion-mnist, or --data-dir)"));
  unsigned char magic[4];
  read_exact(f.get(), path, magic, sizeof(magic));
  if (magic[0] != 0 || magic[1] != 0 || magic[2] != kTypeUnsignedByte || magic[3] == 0) {
    throw ConfigError(str_cat("hvd-train: ", path, ": not an IDX file of unsigned bytes"));
  }
  IdxArray a;
  int64_t total = 1;
  for (int i = 0; i < magic[3]; ++i) {
    unsigned char dim[4];
    read_exact(f.get(), path, dim, sizeof(dim));
    a.dims.push_back(big_endian(dim));
    // Checked multiply: two dims of 2^32-1 overflow int64 and once wrapped past this bound.
    if (__builtin_mul_overflow(total, a.dims.back(), &total) || total > kMaxBytes) {
      throw ConfigError(str_cat("hvd-train: ", path, ": IDX header too large (dimension ", i,
                                " is ", a.dims.back(), ")"));
    }
  }
  // The header's size is only a claim: grow the array as the bytes actually arrive, so that a
  // short (or gzip) file claiming gigabytes is refused as truncated without allocating them.
  const auto want = static_cast<size_t>(total);
  while (a.data.size() < want) {
    const size_t at = a.data.size();
    a.data.resize(at + std::min(want - at, kReadChunk));
    read_exact(f.get(), path, a.data.data() + at, a.data.size() - at);
  }
  return a;
}

}  // namespace hvd::train
