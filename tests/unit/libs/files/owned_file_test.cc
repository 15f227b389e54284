// SPDX-License-Identifier: Apache-2.0
// read_owned_file(): what another user can plant at a name in a shared folder is refused
// before a byte is read, and nothing planted there can block the reader.
#include "files/owned_file.h"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "hvd/error.h"

namespace fs = std::filesystem;
using hvd::files::read_owned_file;
using hvd::files::read_owned_file_at;

namespace {

constexpr uid_t kNobody = 65534;

struct OwnedFileScratch {
  fs::path path;
  OwnedFileScratch() {
    std::string tmpl = (fs::temp_directory_path() / "hvd-owned-XXXXXX").string();
    REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
    path = tmpl;
  }
  ~OwnedFileScratch() { fs::remove_all(path); }
  std::string file(const std::string& name, const std::string& text) const {
    const std::string p = (path / name).string();
    std::ofstream(p) << text;
    return p;
  }
};

std::string refusal(const std::string& path, size_t max_bytes) {
  try {
    read_owned_file(path, max_bytes);
  } catch (const hvd::ConfigError& e) {
    return e.what();
  }
  return "<read>";
}

}  // namespace

TEST_CASE("read_owned_file: the user's own regular file is read whole") {
  OwnedFileScratch dir;
  CHECK(read_owned_file(dir.file("r.json", "{\"a\": 1}\n"), 64) == "{\"a\": 1}\n");
  CHECK(read_owned_file(dir.file("empty", ""), 0).empty());
  CHECK(read_owned_file(dir.file("exact", "12345"), 5) == "12345");
}

TEST_CASE("read_owned_file: a FIFO is refused at once, not waited on") {
  OwnedFileScratch dir;
  const std::string fifo = (dir.path / "t.rank1.bin").string();
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  const auto start = std::chrono::steady_clock::now();
  CHECK(refusal(fifo, 1 << 20).find("it is a FIFO, not a regular file") != std::string::npos);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
}

TEST_CASE("read_owned_file: a symlink is refused, even to the user's own file") {
  OwnedFileScratch dir;
  const std::string target = dir.file("real", "secret");
  const std::string link = (dir.path / "link").string();
  REQUIRE(symlink(target.c_str(), link.c_str()) == 0);
  CHECK(refusal(link, 64) == link + ": not read: it is a symlink; remove it");
}

TEST_CASE("read_owned_file: a file of another uid is refused" * doctest::skip(geteuid() != 0)) {
  // Only root can give a file away; elsewhere the case is skipped, not faked.
  OwnedFileScratch dir;
  const std::string planted = dir.file("report.json", "{}");
  REQUIRE(chown(planted.c_str(), kNobody, kNobody) == 0);
  CHECK(refusal(planted, 64).find("belongs to uid 65534, not to you (uid 0)") != std::string::npos);
}

TEST_CASE("read_owned_file: the size bound holds, for a sparse file too") {
  OwnedFileScratch dir;
  CHECK(refusal(dir.file("six", "123456"), 5) ==
        (dir.path / "six").string() + ": not read: 6 bytes, more than the 5 expected here");
  const std::string sparse = dir.file("sparse", "");
  fs::resize_file(sparse, std::uintmax_t{3} << 30);  // 3 GB of holes: nothing is read
  CHECK(refusal(sparse, 1 << 20).find("3221225472 bytes, more than") != std::string::npos);
}

TEST_CASE("read_owned_file: a folder or a missing name is refused with the name") {
  OwnedFileScratch dir;
  CHECK(refusal(dir.path.string(), 64).find("it is a folder") != std::string::npos);
  CHECK(refusal((dir.path / "absent").string(), 64).find("absent: cannot open: No such file") !=
        std::string::npos);
}

TEST_CASE("read_owned_file_at: names are looked up in the folder opened once") {
  OwnedFileScratch dir;
  dir.file("report.json", "42");
  const int fd = open(dir.path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  // The folder's path is renamed away and another put there: the descriptor still reads the
  // first one.
  const fs::path moved = dir.path.string() + ".moved";
  fs::rename(dir.path, moved);
  fs::create_directory(dir.path);
  std::ofstream((dir.path / "report.json").string()) << "forged";
  CHECK(read_owned_file_at(fd, "report.json", 64) == "42");
  REQUIRE(mkfifo((moved / "fifo").c_str(), 0600) == 0);
  CHECK_THROWS_AS(read_owned_file_at(fd, "fifo", 64), hvd::ConfigError);
  CHECK_THROWS_AS(read_owned_file_at(fd, "../x", 64), hvd::InternalError);
  close(fd);
  fs::remove_all(moved);
}
