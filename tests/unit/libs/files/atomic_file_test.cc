// SPDX-License-Identifier: Apache-2.0
#include "files/atomic_file.h"

#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "hvd/error.h"

namespace fs = std::filesystem;
using hvd::files::AtomicFile;
using hvd::files::write_file_atomically;

namespace {

struct AtomicFileScratch {
  fs::path path;
  AtomicFileScratch() {
    std::string tmpl = (fs::temp_directory_path() / "hvd-atomic-XXXXXX").string();
    REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
    path = tmpl;
  }
  ~AtomicFileScratch() { fs::remove_all(path); }
  size_t entries() const {
    return static_cast<size_t>(std::distance(fs::directory_iterator(path), {}));
  }
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("atomic file: writes the whole content and leaves no temporary file") {
  AtomicFileScratch dir;
  const fs::path target = dir.path / "out.txt";
  write_file_atomically(target.string(), "hello\n");
  CHECK(slurp(target) == "hello\n");
  CHECK(dir.entries() == 1);
  struct stat st {};
  REQUIRE(::stat(target.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == (0644 & ~[] {
          const mode_t m = ::umask(022);
          ::umask(m);
          return m;
        }()));
}

TEST_CASE("atomic file: a planted symlink is replaced, never written through") {
  AtomicFileScratch dir;
  const fs::path victim = dir.path / "victim";
  write_file_atomically(victim.string(), "precious", 0600);
  const fs::path target = dir.path / "report.json";
  fs::create_symlink(victim, target);
  write_file_atomically(target.string(), "new");
  CHECK(slurp(victim) == "precious");
  CHECK_FALSE(fs::is_symlink(target));
  CHECK(slurp(target) == "new");
}

TEST_CASE("atomic file: nothing appears when the writer is dropped before commit") {
  AtomicFileScratch dir;
  const fs::path target = dir.path / "ckpt.bin";
  {
    AtomicFile f(target.string());
    f.write("half");
    CHECK(fs::exists(f.temp_path()));
  }
  CHECK_FALSE(fs::exists(target));
  CHECK(dir.entries() == 0);
}

TEST_CASE("atomic file: an old file stays until the new one is committed") {
  AtomicFileScratch dir;
  const fs::path target = dir.path / "a";
  write_file_atomically(target.string(), "old");
  AtomicFile f(target.string());
  f.write("new");
  CHECK(slurp(target) == "old");
  f.commit();
  CHECK(slurp(target) == "new");
}

TEST_CASE("atomic file: a missing directory is a ConfigError naming the path") {
  AtomicFileScratch dir;
  const std::string target = (dir.path / "no" / "such" / "file").string();
  try {
    write_file_atomically(target, "x");
    FAIL("no error");
  } catch (const hvd::ConfigError& e) {
    CHECK(std::string(e.what()).find(target) != std::string::npos);
  }
  CHECK_THROWS_AS(write_file_atomically((dir.path / "").string(), "x"), hvd::ConfigError);
}

TEST_CASE("atomic file: an existing directory is named as one, and no file is left in it") {
  // `hvdrun sbatch -o /tmp` said "cannot rename a file onto: Is a directory" after writing.
  AtomicFileScratch dir;
  CHECK_THROWS_WITH_AS(write_file_atomically(dir.path.string(), "x"),
                       ("'" + dir.path.string() +
                        "' names a directory, not a file; name a file "
                        "in it")
                           .c_str(),
                       hvd::ConfigError);
  CHECK(std::filesystem::is_empty(dir.path));
}
