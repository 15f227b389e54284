// SPDX-License-Identifier: Apache-2.0
// bin/horovodrun: hvdrun under Horovod's name, --horovod-compat implied, so horovodrun lines
// from site guides run unchanged; --check-build prints Horovod's own text.

#include <filesystem>

#include <doctest/doctest.h>

#include "hvd/build_config.h"
#include "integration/hvdrun_test_util.h"

using namespace hvd::test;

namespace {

std::vector<std::string> horovodrun(std::vector<std::string> args) {
  const std::filesystem::path link =
      std::filesystem::path(HVDRUN_EXE).parent_path() / "horovodrun";
  args.insert(args.begin(), link.string());
  return args;
}

}  // namespace

TEST_CASE("horovodrun is a link to hvdrun beside it") {
  const std::filesystem::path link = std::filesystem::path(HVDRUN_EXE).parent_path() / "horovodrun";
  REQUIRE(std::filesystem::is_symlink(link));
  CHECK(std::filesystem::read_symlink(link) == "hvdrun");  // relative: it moves with the tree
}

TEST_CASE("horovodrun --check-build prints Horovod 0.28.1's text") {
  const ProcessResult r = run(horovodrun({"--check-build"}));
  REQUIRE(r.exit_code == 0);
  const std::vector<std::string> lines = split_lines(r.out);
  REQUIRE(lines.size() == 17);
  CHECK(lines[0] == "Horovod v0.28.1:");
  CHECK(lines[2] == "Available Frameworks:");
  CHECK(lines[4] == std::string("    [") + (HVD_HAVE_TORCH ? "X" : " ") + "] PyTorch");
  CHECK(lines[7] == "Available Controllers:");
  CHECK(lines[9] == "    [X] Gloo");
  CHECK(lines[11] == "Available Tensor Operations:");
  CHECK(lines[16] == "    [X] Gloo    ");
  // hvdrun itself keeps its own layout.
  CHECK(split_lines(run(hvdrun({"--check-build"})).out)[0] ==
        std::string("hvdrun v") + HVD_VERSION + ":");
}

TEST_CASE("horovodrun -np 2 -H localhost:2 prog: a horovodrun line runs unchanged") {
  const ProcessResult r = run(horovodrun(
      {"-np", "2", "-H", "localhost:2", "/bin/sh", "-c",
       "echo rank=$HOROVOD_RANK pp=$PYTHONPATH"}));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.out.find("[0]<stdout>:rank=0") != std::string::npos);
  CHECK(r.out.find("[1]<stdout>:rank=1") != std::string::npos);
  if (HVD_HAVE_TORCH) {  // the horovod package is put on the ranks' path only where it is built
    CHECK(r.out.find("lib/hvdrun/horovod-compat") != std::string::npos);
    const ProcessResult py = run(horovodrun(
        {"-np", "2", "-H", "localhost:2", "/usr/bin/python3", "-c",
         "import horovod.torch as hvd; hvd.init(); print('size', hvd.size()); hvd.shutdown()"}));
    CHECK_MESSAGE(py.exit_code == 0, py.err);
    CHECK(py.out.find("[1]<stdout>:size 2") != std::string::npos);
  }
}
