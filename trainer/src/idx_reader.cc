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
    total *= a.dims.back();
    if (total > kMaxBytes)
      throw ConfigError(str_cat("hvd-train: ", path, ": IDX header too large"));
  }
  a.data.resize(static_cast<size_t>(total));
  read_exact(f.get(), path, a.data.data(), a.data.size());
  return a;
}

}  // namespace hvd::train
