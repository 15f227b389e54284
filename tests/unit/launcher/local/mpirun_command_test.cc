// SPDX-License-Identifier: Apache-2.0
#include "local/mpirun_command.h"

#include <doctest/doctest.h>

#include <algorithm>

namespace local = hvd::launcher::local;

namespace {

bool has_word(const std::vector<std::string>& argv, const std::string& word) {
  return std::find(argv.begin(), argv.end(), word) != argv.end();
}

local::MpirunRequest request(int np, int cores, bool root) {
  local::MpirunRequest r;
  r.mpirun = "/usr/bin/mpirun";
  r.num_proc = np;
  r.cores = cores;
  r.as_root = root;
  r.env = {{"MASTER_PORT", "4000"}, {"PYTHONUNBUFFERED", "1"}};
  r.command = {"python3", "prog.py", "-x"};
  return r;
}

}  // namespace

TEST_CASE("mpirun_command: np, tags, exported variables, then the program untouched") {
  const auto argv = local::build_mpirun_command(request(4, 8, false));
  const std::vector<std::string> expected = {"/usr/bin/mpirun",
                                             "-np",
                                             "4",
                                             "--bind-to",
                                             "none",
                                             "--tag-output",
                                             "-x",
                                             "MASTER_PORT=4000",
                                             "-x",
                                             "PYTHONUNBUFFERED=1",
                                             "python3",
                                             "prog.py",
                                             "-x"};
  CHECK(argv == expected);
}

TEST_CASE("mpirun_command: --allow-run-as-root only as root, --oversubscribe only past the cores") {
  CHECK(has_word(local::build_mpirun_command(request(4, 8, true)), "--allow-run-as-root"));
  CHECK_FALSE(has_word(local::build_mpirun_command(request(4, 8, false)), "--allow-run-as-root"));
  CHECK_FALSE(has_word(local::build_mpirun_command(request(8, 8, false)), "--oversubscribe"));
  CHECK(has_word(local::build_mpirun_command(request(9, 8, false)), "--oversubscribe"));
}

TEST_CASE("mpirun_command: hvdrun's binding becomes mpirun's --bind-to") {
  local::MpirunRequest r = request(2, 8, false);
  r.bind_to = "core";
  const auto argv = local::build_mpirun_command(r);
  const auto it = std::find(argv.begin(), argv.end(), "--bind-to");
  REQUIRE(it != argv.end());
  CHECK(*(it + 1) == "core");
}
