// SPDX-License-Identifier: Apache-2.0
#include "cli/argv_compat.h"

#include <doctest/doctest.h>

#include <CLI/CLI.hpp>

#include "cli/run_cmd.h"
#include "config/run_options.h"
#include "hvd/error.h"

using hvd::launcher::cli::normalize_horovodrun_args;
using Args = std::vector<std::string>;

TEST_CASE("argv_compat: horovodrun's single-dash options become long ones") {
  const std::set<std::string> takes_value = {"--num-proc", "-n", "-H", "--hosts", "--hostfile"};
  CHECK(normalize_horovodrun_args({"hvdrun", "-np", "4", "-cb"}, takes_value) ==
        Args{"hvdrun", "--num-proc", "4", "--check-build"});
  CHECK(normalize_horovodrun_args({"hvdrun", "-np=4", "-hostfile", "h"}, takes_value) ==
        Args{"hvdrun", "--num-proc=4", "--hostfile", "h"});

  SUBCASE("nothing after -- or from the program on is touched") {
    CHECK(normalize_horovodrun_args({"hvdrun", "-np", "2", "--", "prog", "-np", "3"},
                                    takes_value) ==
          Args{"hvdrun", "--num-proc", "2", "--", "prog", "-np", "3"});
    CHECK(normalize_horovodrun_args({"hvdrun", "-np", "2", "prog", "-cb"}, takes_value) ==
          Args{"hvdrun", "--num-proc", "2", "prog", "-cb"});
  }
  SUBCASE("the value of an option is not mistaken for the program") {
    CHECK(normalize_horovodrun_args({"hvdrun", "-H", "localhost:2", "-np", "2", "prog"},
                                    takes_value) ==
          Args{"hvdrun", "-H", "localhost:2", "--num-proc", "2", "prog"});
  }
}

TEST_CASE("argv_compat: options in option groups take their value too (--cycle-time-ms 1 -np 2)") {
  // The real option table: hvdrun registers its tunables in option groups, which CLI11's
  // get_options() leaves out; the scan then stopped at "1" and -np stayed a bundle of flags.
  CLI::App app;
  hvd::launcher::config::RunOptions opts;
  hvd::launcher::cli::register_run_options(app, opts);
  const std::set<std::string> takes_value = hvd::launcher::cli::options_taking_value(app);
  CHECK(takes_value.count("--cycle-time-ms") == 1);
  CHECK(takes_value.count("--num-proc") == 1);
  CHECK(normalize_horovodrun_args({"hvdrun", "--cycle-time-ms", "1", "-np", "2", "--", "p"},
                                  takes_value) ==
        Args{"hvdrun", "--cycle-time-ms", "1", "--num-proc", "2", "--", "p"});
}

TEST_CASE("argv_compat: a subcommand that takes -np (hvdrun preflight -np 2)") {
  const std::set<std::string> takes_value = {"--num-proc", "--threshold"};
  CHECK(normalize_horovodrun_args({"hvdrun", "preflight", "--threshold", "0.5", "-np", "2"},
                                  takes_value, {"preflight"}) ==
        Args{"hvdrun", "preflight", "--threshold", "0.5", "--num-proc", "2"});
  // Only as the first word, and only the subcommands named.
  CHECK(normalize_horovodrun_args({"hvdrun", "sbatch", "-np", "2"}, takes_value, {"preflight"}) ==
        Args{"hvdrun", "sbatch", "-np", "2"});
  CHECK(normalize_horovodrun_args({"hvdrun", "-np", "2", "preflight", "-np", "3"}, takes_value,
                                  {"preflight"}) ==
        Args{"hvdrun", "--num-proc", "2", "preflight", "-np", "3"});
}

TEST_CASE("argv_compat: horovodrun options hvdrun lacks are dropped with a note or refused") {
  const std::set<std::string> takes_value = {"--num-proc", "-n"};
  Args notes;
  SUBCASE("those with no effect here go, with their values, and leave a note each") {
    CHECK(normalize_horovodrun_args({"hvdrun", "--gloo", "-np", "2", "-p", "2222",
                                     "--ssh-identity-file=k", "prog", "--gloo"},
                                    takes_value, {}, &notes) ==
          Args{"hvdrun", "--num-proc", "2", "prog", "--gloo"});
    REQUIRE(notes.size() == 3);
    CHECK(notes[0].find("--gloo has no effect") == 0);
    CHECK(notes[1].find("-p has no effect") == 0);
    CHECK(notes[2].find("--ssh-identity-file has no effect") == 0);
  }
  SUBCASE("those that would change the run stop it, saying what to do instead") {
    CHECK_THROWS_WITH_AS(
        normalize_horovodrun_args({"hvdrun", "--start-timeout", "60", "-np", "2", "prog"},
                                  takes_value),
        doctest::Contains("HVD_BOOTSTRAP_TIMEOUT"), hvd::UsageError);
    CHECK_THROWS_WITH_AS(
        normalize_horovodrun_args({"hvdrun", "--min-np", "2", "prog"}, takes_value),
        doctest::Contains("fixed set of ranks"), hvd::UsageError);
    CHECK_THROWS_WITH_AS(normalize_horovodrun_args({"hvdrun", "--autotune", "prog"}, takes_value),
                         doctest::Contains("--fusion-threshold-mb"), hvd::UsageError);
  }
  SUBCASE("one that takes a value but has none") {
    CHECK_THROWS_WITH_AS(normalize_horovodrun_args({"hvdrun", "-np", "2", "-p"}, takes_value),
                         doctest::Contains("-p needs a value"), hvd::UsageError);
  }
  SUBCASE("after the program they are the program's") {
    CHECK(normalize_horovodrun_args({"hvdrun", "-np", "2", "--", "prog", "--autotune"},
                                    takes_value) ==
          Args{"hvdrun", "--num-proc", "2", "--", "prog", "--autotune"});
  }
}
