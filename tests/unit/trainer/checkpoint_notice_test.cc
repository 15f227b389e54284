// SPDX-License-Identifier: Apache-2.0
// The checkpoint-notice file sits in /dev/shm, where every user can plant files: only a regular
// file of this user is a notice.

#include "checkpoint_notice.h"

#include <doctest/doctest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "temp_dir.h"

using hvd::train::CheckpointNotice;
using hvd::train::testing::TempDir;

namespace {

bool notice_with_file(const std::string& path) {
  setenv("HVD_CHECKPOINT_FILE", path.c_str(), 1);
  const CheckpointNotice notice;
  unsetenv("HVD_CHECKPOINT_FILE");
  return notice.seen_here();
}

}  // namespace

TEST_CASE("checkpoint notice: the user's own file is a notice, no file is none") {
  TempDir dir;
  CHECK_FALSE(notice_with_file(dir.file("notice")));
  std::ofstream(dir.file("notice")).put('\n');
  CHECK(notice_with_file(dir.file("notice")));
}

TEST_CASE("checkpoint notice: a symlink at the name, even to the user's own file, is none") {
  TempDir dir;
  std::ofstream(dir.file("own")).put('\n');
  std::filesystem::create_symlink(dir.file("own"), dir.file("notice"));
  CHECK_FALSE(notice_with_file(dir.file("notice")));
}

TEST_CASE("checkpoint notice: a folder at the name is none") {
  TempDir dir;
  std::filesystem::create_directory(dir.file("notice"));
  CHECK_FALSE(notice_with_file(dir.file("notice")));
}

TEST_CASE("checkpoint notice: a file another user owns is none" * doctest::skip(geteuid() != 0)) {
  TempDir dir;
  std::ofstream(dir.file("notice")).put('\n');
  REQUIRE(chown(dir.file("notice").c_str(), 65534, 65534) == 0);
  CHECK_FALSE(notice_with_file(dir.file("notice")));
}
