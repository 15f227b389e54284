// SPDX-License-Identifier: Apache-2.0
#include "proc/program_lookup.h"

#include <doctest/doctest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "hvd/error.h"

using hvd::launcher::proc::resolve_program;

TEST_CASE("program_lookup: PATH search and explicit paths") {
  const hvd::EnvMap env = {{"PATH", "/nonexistent:/bin:/usr/bin"}};
  const std::string sh = resolve_program("sh", env);
  CHECK((sh == "/bin/sh" || sh == "/usr/bin/sh"));
  CHECK(resolve_program("/bin/sh", env) == "/bin/sh");
  CHECK_THROWS_WITH_AS(resolve_program("no-such-prog", env),
                       "program 'no-such-prog' was not found in PATH (/nonexistent:/bin:/usr/bin); "
                       "check its spelling, or give its path (./no-such-prog)",
                       hvd::LaunchError);
  const std::string plain = std::filesystem::temp_directory_path() / "hvd-not-executable";
  std::ofstream(plain) << "#!/bin/sh\n";
  chmod(plain.c_str(), 0644);
  CHECK_THROWS_WITH_AS(resolve_program(plain, env),
                       ("program '" + plain + "' is not executable; chmod +x it or run it "
                        "through its interpreter (e.g. python3 " + plain + ")").c_str(),
                       hvd::LaunchError);
  std::filesystem::remove(plain);
  CHECK_THROWS_AS(resolve_program("/usr", env), hvd::LaunchError);
  CHECK_THROWS_AS(resolve_program("./missing", env), hvd::LaunchError);
  CHECK_THROWS_AS(resolve_program("", env), hvd::LaunchError);
}
