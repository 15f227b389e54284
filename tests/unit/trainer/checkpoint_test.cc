// SPDX-License-Identifier: Apache-2.0
#include "checkpoint.h"

#include <doctest/doctest.h>

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
