// SPDX-License-Identifier: Apache-2.0
#include "idx_reader.h"

#include <doctest/doctest.h>
#include <zlib.h>

#include <vector>

#include "dataset.h"
#include "hvd/error.h"
#include "temp_dir.h"

using hvd::train::read_idx;
using hvd::train::testing::TempDir;

namespace {

// An IDX file of unsigned bytes: magic 00 00 08 <ndims>, big-endian dims, then the data.
std::vector<unsigned char> idx_bytes(const std::vector<uint32_t>& dims,
                                     const std::vector<unsigned char>& data) {
  std::vector<unsigned char> b{0, 0, 0x08, static_cast<unsigned char>(dims.size())};
  for (uint32_t d : dims) {
    for (int shift = 24; shift >= 0; shift -= 8)
      b.push_back(static_cast<unsigned char>(d >> shift));
  }
  b.insert(b.end(), data.begin(), data.end());
  return b;
}

void write_gz(const std::string& path, const std::vector<unsigned char>& bytes) {
  gzFile f = gzopen(path.c_str(), "wb");
  REQUIRE(f != nullptr);
  REQUIRE(gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size())) ==
          static_cast<int>(bytes.size()));
  REQUIRE(gzclose(f) == Z_OK);
}

}  // namespace

TEST_CASE("idx_reader: reads the dims and bytes of a gzip-compressed IDX file") {
  TempDir dir;
  const std::vector<unsigned char> data{1, 2, 3, 4, 5, 6, 250, 255, 0, 9, 8, 7};
  write_gz(dir.file("a.gz"), idx_bytes({2, 3, 2}, data));
  const hvd::train::IdxArray a = read_idx(dir.file("a.gz"));
  CHECK(a.dims == std::vector<int64_t>{2, 3, 2});
  CHECK(a.data == std::vector<uint8_t>(data.begin(), data.end()));

  SUBCASE("a truncated file is a ConfigError") {
    std::vector<unsigned char> short_data(data.begin(), data.end() - 1);
    write_gz(dir.file("short.gz"), idx_bytes({2, 3, 2}, short_data));
    CHECK_THROWS_AS(read_idx(dir.file("short.gz")), hvd::ConfigError);
  }
  SUBCASE("another element type is refused") {
    std::vector<unsigned char> floats = idx_bytes({1}, {0, 0, 0, 0});
    floats[2] = 0x0D;
    write_gz(dir.file("floats.gz"), floats);
    CHECK_THROWS_WITH_AS(read_idx(dir.file("floats.gz")), doctest::Contains("unsigned bytes"),
                         hvd::ConfigError);
  }
  SUBCASE("dims whose product overflows int64 are a ConfigError, not a wrapped size") {
    // (2^32-1)^2 wrapped to a negative int64 that passed the old size bound.
    write_gz(dir.file("wrap.gz"), idx_bytes({0xFFFFFFFFu, 0xFFFFFFFFu, 2}, data));
    CHECK_THROWS_WITH_AS(read_idx(dir.file("wrap.gz")), doctest::Contains("IDX header too large"),
                         hvd::ConfigError);
  }
  SUBCASE("a header claiming gigabytes over a few bytes is refused as truncated") {
    write_gz(dir.file("claims.gz"), idx_bytes({0x40000000u, 4}, data));
    CHECK_THROWS_WITH_AS(read_idx(dir.file("claims.gz")), doctest::Contains("truncated"),
                         hvd::ConfigError);
  }
  SUBCASE("a missing file names the Debian package") {
    CHECK_THROWS_WITH_AS(read_idx(dir.file("missing.gz")),
                         doctest::Contains("dataset-fashion-mnist"), hvd::ConfigError);
  }
}

TEST_CASE("idx_reader: load_fashion_mnist normalizes pixels and checks the labels") {
  TempDir dir;
  write_gz(dir.file("train-images-idx3-ubyte.gz"),
           idx_bytes({2, 28, 28}, std::vector<unsigned char>(2 * 28 * 28, 255)));
  write_gz(dir.file("train-labels-idx1-ubyte.gz"), idx_bytes({2}, {3, 9}));
  const hvd::train::Dataset d = hvd::train::load_fashion_mnist(dir.path().string(), "train");
  CHECK(d.size() == 2);
  CHECK(d.labels == std::vector<int32_t>{3, 9});
  CHECK(d.images[0] == doctest::Approx((1.0 - 0.2860) / 0.3530));

  SUBCASE("a label out of range is refused") {
    write_gz(dir.file("train-labels-idx1-ubyte.gz"), idx_bytes({2}, {3, 10}));
    CHECK_THROWS_AS(hvd::train::load_fashion_mnist(dir.path().string(), "train"), hvd::ConfigError);
  }
}
