// SPDX-License-Identifier: Apache-2.0
#include "exec/output_router.h"

#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "hvd/error.h"

using hvd::launcher::exec::OutputRouter;
using hvd::launcher::exec::Stream;

namespace {

// Captures what the router writes, through a real file descriptor.
struct Capture {
  FILE* file = std::tmpfile();
  ~Capture() { std::fclose(file); }
  int fd() const { return fileno(file); }
  std::string text() const {
    std::fflush(file);
    std::string out;
    char buf[4096];
    const off_t end = lseek(fd(), 0, SEEK_END);
    for (off_t pos = 0; pos < end;) {
      const ssize_t n = pread(fd(), buf, sizeof(buf), pos);
      if (n <= 0) break;
      out.append(buf, static_cast<size_t>(n));
      pos += n;
    }
    return out;
  }
};

}  // namespace

TEST_CASE("output_router: pieces become whole tagged lines") {
  Capture out, err;
  OutputRouter router(2, true, "", out.fd(), err.fd());
  router.on_data(0, Stream::kStdout, "hel");
  router.on_data(1, Stream::kStdout, "other\nhalf");
  router.on_data(0, Stream::kStdout, "lo\nworld\n");
  router.on_data(1, Stream::kStderr, "oops\n");
  router.flush();
  CHECK(out.text() == "[1]<stdout>:other\n[0]<stdout>:hello\n[0]<stdout>:world\n");
  CHECK(err.text() == "[1]<stderr>:oops\n");
  router.on_eof(1, Stream::kStdout);
  router.flush();
  CHECK(out.text().substr(out.text().size() - 17) == "[1]<stdout>:half\n");
}

TEST_CASE("output_router: untagged, empty lines, and a line without end") {
  Capture out, err;
  OutputRouter router(1, false, "", out.fd(), err.fd());
  router.on_data(0, Stream::kStdout, "\n\nx\n");
  router.flush();
  CHECK(out.text() == "\n\nx\n");
  const std::string huge(OutputRouter::kMaxLine + 10, 'z');
  router.on_data(0, Stream::kStdout, huge);  // bounded memory: emitted once over the limit
  router.flush();
  CHECK(out.text().size() == 4 + huge.size() + 1);
}

TEST_CASE("output_router: per-rank files hold the raw bytes") {
  const std::string dir = std::filesystem::temp_directory_path() / "hvd-router-test";
  std::filesystem::remove_all(dir);
  Capture out, err;
  {
    OutputRouter router(12, true, dir, out.fd(), err.fd());
    router.on_data(3, Stream::kStdout, "a\nb");
    router.on_data(3, Stream::kStderr, "e\n");
  }
  std::ifstream f(dir + "/rank.03/stdout");
  std::stringstream s;
  s << f.rdbuf();
  CHECK(s.str() == "a\nb");
  CHECK(std::filesystem::exists(dir + "/rank.11/stderr"));
  CHECK(OutputRouter::rank_dir_name(7, 8) == "rank.7");
  CHECK(OutputRouter::rank_dir_name(7, 100) == "rank.07");
  std::filesystem::remove_all(dir);
}

TEST_CASE("output_router: srun --label and mpirun --tag-output lines become hvdrun's tags") {
  Capture out, err;
  OutputRouter srun(8, true, "", out.fd(), err.fd());
  srun.on_labeled_data(Stream::kStdout, "  3: from srun\nsrun: not a rank\n");
  srun.flush();
  CHECK(out.text() == "[3]<stdout>:from srun\nsrun: not a rank\n");

  Capture out2, err2;
  OutputRouter mpirun(4, true, "", out2.fd(), err2.fd());
  mpirun.set_label_style(OutputRouter::LabelStyle::kOpenMpi);
  mpirun.on_labeled_data(Stream::kStdout, "[1,2]<stdout>:hello: world\n[1,9]<stdout>:x\n");
  mpirun.on_labeled_data(Stream::kStderr, "[1,0]<stderr>:oops\nmpirun noticed\n");
  mpirun.flush();
  // Rank 9 is outside the job of 4: passed through as it is, like mpirun's own messages.
  CHECK(out2.text() == "[2]<stdout>:hello: world\n[1,9]<stdout>:x\n");
  CHECK(err2.text() == "[0]<stderr>:oops\nmpirun noticed\n");
}

TEST_CASE("output_router: the rest of a labeled line cut at kMaxLine stays the same rank's") {
  Capture out, err;
  OutputRouter srun(4, true, "", out.fd(), err.fd());
  std::vector<std::string> observed;
  srun.set_unlabeled_observer([&](std::string_view line) { observed.emplace_back(line); });
  const std::string padding(OutputRouter::kMaxLine, 'x');
  // Rank 1 pads its line past the cut and then prints what looks like rank 0's label, then what
  // looks like srun's report of a failure with an exit code that std::stoi could not hold.
  srun.on_labeled_data(Stream::kStdout, "1: " + padding);
  srun.on_labeled_data(Stream::kStdout, "0: forged\n");
  srun.on_labeled_data(Stream::kStdout, "2: " + padding);
  srun.on_labeled_data(Stream::kStdout,
                       "srun: error: n: task 0: Exited with exit code 9999999999\n");
  srun.on_labeled_data(Stream::kStdout, "0: real\n");
  srun.flush();
  std::istringstream lines(out.text());
  std::vector<std::string> got;
  for (std::string line; std::getline(lines, line);) got.push_back(line.substr(0, 40));
  REQUIRE(got.size() == 5);
  CHECK(got[1] == "[1]<stdout>:0: forged");
  CHECK(got[3].rfind("[2]<stdout>:srun: error: n: task 0:", 0) == 0);
  CHECK(got[4] == "[0]<stdout>:real");
  CHECK(observed.empty());
}

TEST_CASE("output_router: a symlink planted at a rank's log is replaced, not written through") {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "hvd-router-symlink";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir / "rank.0");
  const std::filesystem::path victim = dir / "victim";
  { std::ofstream(victim) << "precious"; }
  std::filesystem::create_symlink(victim, dir / "rank.0" / "stdout");
  Capture out, err;
  {
    OutputRouter router(1, true, dir.string(), out.fd(), err.fd());
    router.on_data(0, Stream::kStdout, "rank output\n");
  }
  std::stringstream kept;
  kept << std::ifstream(victim).rdbuf();
  CHECK(kept.str() == "precious");
  CHECK_FALSE(std::filesystem::is_symlink(dir / "rank.0" / "stdout"));
  std::stringstream log;
  log << std::ifstream(dir / "rank.0" / "stdout").rdbuf();
  CHECK(log.str() == "rank output\n");
  std::filesystem::remove_all(dir);
}

TEST_CASE("output_router: a rank folder another user planted is refused, not written into") {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "hvd-router-planted";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir / "theirs");
  Capture out, err;
  SUBCASE("a symlink at rank.0, to a folder the other user reads") {
    std::filesystem::create_directory_symlink(dir / "theirs", dir / "rank.0");
    CHECK_THROWS_WITH_AS(OutputRouter(1, true, dir.string(), out.fd(), err.fd()),
                         doctest::Contains("is not a folder of this user"), hvd::LaunchError);
    CHECK(std::filesystem::is_empty(dir / "theirs"));
  }
  if (geteuid() == 0) {
    SUBCASE("a folder of another user at rank.0") {
      std::filesystem::create_directory(dir / "rank.0");
      REQUIRE(chown((dir / "rank.0").c_str(), 65534, 65534) == 0);
      CHECK_THROWS_WITH_AS(OutputRouter(1, true, dir.string(), out.fd(), err.fd()),
                           doctest::Contains("is not a folder of this user"), hvd::LaunchError);
      CHECK(std::filesystem::is_empty(dir / "rank.0"));
    }
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("output_router: an output folder of another user is refused before anything goes in") {
  if (geteuid() != 0) return;  // needs chown to another uid
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "hvd-router-theirs";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  REQUIRE(chown(dir.c_str(), 65534, 65534) == 0);
  Capture out, err;
  CHECK_THROWS_WITH_AS(OutputRouter(2, true, dir.string(), out.fd(), err.fd()),
                       doctest::Contains("is not a folder of this user"), hvd::LaunchError);
  CHECK(std::filesystem::is_empty(dir));  // no rank.N made inside it
  SUBCASE("the same folder through a symlink of ours is refused too") {
    const std::filesystem::path link = dir.string() + "-link";
    std::filesystem::remove(link);
    std::filesystem::create_directory_symlink(dir, link);
    CHECK_THROWS_WITH_AS(OutputRouter(1, true, link.string(), out.fd(), err.fd()),
                         doctest::Contains("is not a folder of this user"), hvd::LaunchError);
    std::filesystem::remove(link);
  }
  SUBCASE("a folder of ours reached through a symlink of ours is fine") {
    const std::filesystem::path mine = dir.string() + "-mine";
    const std::filesystem::path link = dir.string() + "-mylink";
    std::filesystem::remove_all(mine);
    std::filesystem::remove(link);
    std::filesystem::create_directories(mine);
    std::filesystem::create_directory_symlink(mine, link);
    CHECK_NOTHROW(OutputRouter(1, true, link.string(), out.fd(), err.fd()));
    CHECK(std::filesystem::is_directory(mine / "rank.0"));
    std::filesystem::remove(link);
    std::filesystem::remove_all(mine);
  }
  std::filesystem::remove_all(dir);
}
