// SPDX-License-Identifier: Apache-2.0
#include "checkpoint.h"

#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "hvd/error.h"
#include "temp_dir.h"

using hvd::train::Checkpoint;
using hvd::train::testing::TempDir;

namespace {

Checkpoint sample(float scale) {
  Checkpoint c;
  c.widths = {4, 3, 2};
  c.step = 77;
  for (int i = 0; i < 23; ++i) {
    c.params.push_back(scale * static_cast<float>(i) - 1.5f);
    c.momentum.push_back(scale * 0.01f * static_cast<float>(i));
  }
  return c;
}

size_t files_in(const std::filesystem::path& dir) {
  size_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++n;
  return n;
}

}  // namespace

TEST_CASE("checkpoint: a written checkpoint reads back identically and leaves no temp file") {
  TempDir dir;
  const std::string path = dir.file("ck.bin");
  hvd::train::write_checkpoint(path, sample(1.0f));
  Checkpoint back = hvd::train::read_checkpoint(path);
  CHECK(back.widths == sample(1.0f).widths);
  CHECK(back.step == 77);
  CHECK(back.params == sample(1.0f).params);
  CHECK(back.momentum == sample(1.0f).momentum);
  CHECK(files_in(dir.path()) == 1);

  SUBCASE("a second write replaces the first") {
    hvd::train::write_checkpoint(path, sample(2.0f));
    CHECK(hvd::train::read_checkpoint(path).params == sample(2.0f).params);
    CHECK(files_in(dir.path()) == 1);
  }
  SUBCASE("a flipped byte fails the checksum") {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(40);
    f.put('\x7f');
    f.close();
    CHECK_THROWS_WITH_AS(hvd::train::read_checkpoint(path), doctest::Contains("checksum"),
                         hvd::ConfigError);
  }
  SUBCASE("a truncated file is refused") {
    std::filesystem::resize_file(path, 30);
    CHECK_THROWS_AS(hvd::train::read_checkpoint(path), hvd::ConfigError);
  }
  SUBCASE("an unwritable folder is a ConfigError that names the path") {
    CHECK_THROWS_WITH_AS(hvd::train::write_checkpoint(dir.file("no/such/dir/ck"), sample(1.0f)),
                         doctest::Contains("no/such/dir"), hvd::ConfigError);
  }
}

namespace {
void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}
// A checkpoint file whose checksum is right but whose content is whatever `body` says.
std::string with_checksum(std::string body) {
  uint64_t h = 0xCBF29CE484222325ull;
  for (unsigned char ch : body) h = (h ^ ch) * 0x100000001B3ull;
  body.append(reinterpret_cast<const char*>(&h), sizeof(h));
  return body;
}
template <typename T>
std::string raw(T v) {
  return std::string(reinterpret_cast<const char*>(&v), sizeof(v));
}
}  // namespace

TEST_CASE("checkpoint: a 90-byte file with a huge widths count is refused before allocating") {
  // Issue 10: this drove hvd-train to 11.8 GB before failing.
  std::string body = std::string("HVDTRN01") + raw<uint32_t>(0xFFFFFFF0u);
  body.resize(90 - sizeof(uint64_t), '\0');
  const std::string file = with_checksum(body);
  REQUIRE(file.size() == 90);
  TempDir dir;
  const std::string path = dir.file("huge.ckpt");
  write_bytes(path, file);
  CHECK_THROWS_WITH_AS(hvd::train::read_checkpoint(path),
                       doctest::Contains("huge.ckpt: it claims 4294967280 layer widths"),
                       hvd::ConfigError);
}

TEST_CASE("checkpoint: a parameter count other than the widths imply is refused") {
  Checkpoint c = sample(1.0f);
  c.params.pop_back();
  c.momentum.pop_back();
  TempDir dir;
  const std::string path = dir.file("short.ckpt");
  hvd::train::write_checkpoint(path, c);
  CHECK_THROWS_WITH_AS(hvd::train::read_checkpoint(path),
                       doctest::Contains("holds 22 parameters, but its widths imply 23"),
                       hvd::ConfigError);
}

TEST_CASE("checkpoint: bad widths, a negative step and padding are refused") {
  const Checkpoint good = sample(1.0f);
  std::string head = std::string("HVDTRN01") + raw<uint32_t>(3) + raw<int32_t>(4) +
                     raw<int32_t>(-3) + raw<int32_t>(2) + raw<int64_t>(1) + raw<uint64_t>(23);
  CHECK_THROWS_WITH_AS(hvd::train::parse_checkpoint(with_checksum(head), "x"),
                       doctest::Contains("a layer width of -3"), hvd::ConfigError);
  head = std::string("HVDTRN01") + raw<uint32_t>(3) + raw<int32_t>(4) + raw<int32_t>(3) +
         raw<int32_t>(2) + raw<int64_t>(-1) + raw<uint64_t>(23);
  CHECK_THROWS_WITH_AS(hvd::train::parse_checkpoint(with_checksum(head), "x"),
                       doctest::Contains("negative step"), hvd::ConfigError);
  head = std::string("HVDTRN01") + raw<uint32_t>(3) + raw<int32_t>(4) + raw<int32_t>(3) +
         raw<int32_t>(2) + raw<int64_t>(1) + raw<uint64_t>(23);
  std::string floats(2 * 23 * sizeof(float), '\0');
  CHECK(hvd::train::parse_checkpoint(with_checksum(head + floats), "x").params.size() == 23);
  CHECK_THROWS_WITH_AS(hvd::train::parse_checkpoint(with_checksum(head + floats + "pad"), "x"),
                       doctest::Contains("truncated or padded"), hvd::ConfigError);
  CHECK_THROWS_AS(hvd::train::parse_checkpoint(with_checksum(head + floats.substr(4)), "x"),
                  hvd::ConfigError);
  CHECK(good.params.size() == 23);
}

TEST_CASE("checkpoint: the write does not follow a symlink planted at the old temp name") {
  TempDir dir;
  const std::string path = dir.file("ck.bin");
  const std::string victim = dir.file("victim");
  write_bytes(victim, "precious");
  // The old code wrote to path + ".tmp." + pid with O_TRUNC, through any symlink there.
  std::filesystem::create_symlink(victim, path + ".tmp." + std::to_string(::getpid()));
  hvd::train::write_checkpoint(path, sample(1.0f));
  std::ifstream in(victim);
  std::string content;
  std::getline(in, content);
  CHECK(content == "precious");
  CHECK(hvd::train::read_checkpoint(path).params == sample(1.0f).params);
}
