// SPDX-License-Identifier: Apache-2.0
// A new user's mistakes on the command line: each gets one line naming the option and what
// would be accepted, and a typo gets the option it was probably meant to be.
#include "cli/option_names.h"

#include <doctest/doctest.h>

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/parse_error_text.h"
#include "cli/run_cmd.h"
#include "hvd/error.h"
#include "util/closest_name.h"

namespace cli = hvd::launcher::cli;
namespace util = hvd::launcher::util;

namespace {

// hvdrun's whole command line, parsed as main() does (without horovodrun's -np rewriting).
struct Hvdrun {
  CLI::App app{"", "hvdrun"};
  cli::Commands commands;
  Hvdrun() { cli::register_commands(app, commands); }

  // The error line main() would print for a parse error, or "parsed".
  std::string parse(std::vector<std::string> args) {
    args.insert(args.begin(), "hvdrun");
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    try {
      app.parse(static_cast<int>(argv.size()), argv.data());
    } catch (const CLI::ParseError& e) {
      return cli::parse_error_text(e, app);
    }
    return "parsed";
  }
};

std::string leftovers_error(const CLI::App& sub, const std::string& name) {
  try {
    cli::refuse_leftovers(sub, name);
  } catch (const hvd::UsageError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("option names: a typo gets the closest option, a stranger gets none") {
  const std::vector<std::string> names = {"--num-proc", "-n",      "--bind-to", "--dry-run",
                                          "--hostfile", "--hosts", "-H"};
  CHECK(util::closest_name("--num-prc", names) == "--num-proc");
  CHECK(util::closest_name("--bind-too", names) == "--bind-to");
  CHECK(util::closest_name("--dryrun", names) == "--dry-run");
  CHECK(util::closest_name("--dry", names) == "--dry-run");  // the only option it starts
  CHECK(util::closest_name("--host", names) == "--hosts");
  CHECK(util::closest_name("--bogus", names).empty());
  CHECK(util::closest_name("-x", names).empty());  // too short to mean anything
}

TEST_CASE("option names: unknown options of the run say what was meant") {
  Hvdrun h;
  REQUIRE(h.parse({"--num-prc", "2", "--", "true"}) == "parsed");
  CHECK_THROWS_WITH_AS(cli::take_command(h.app.remaining(), h.app),
                       "unknown option '--num-prc' (did you mean --num-proc?); see hvdrun --help "
                       "(put the program after --)",
                       hvd::UsageError);
  CHECK(cli::unknown_option_message("--np", h.app, "hvdrun") ==
        "unknown option '--np' (did you mean -np?); see hvdrun --help");
}

TEST_CASE("option names: commands without a program drop no typo quietly") {
  // `hvdrun predict ... --jsn out.json` printed the table and wrote no JSON, exit 0.
  Hvdrun h;
  REQUIRE(h.parse({"predict", "--step-ms", "5", "--jsn", "out.json"}) == "parsed");
  CHECK(leftovers_error(*h.commands.predict_cmd, "hvdrun predict") ==
        "unknown option '--jsn' (did you mean --json?); see hvdrun predict --help");

  Hvdrun p;
  REQUIRE(p.parse({"preflight", "-n", "2", "--treshold", "0.5"}) == "parsed");
  CHECK(leftovers_error(*p.commands.preflight_cmd, "hvdrun preflight") ==
        "unknown option '--treshold' (did you mean --threshold?); see hvdrun preflight --help");

  // It drew `svg` as a file name instead.
  Hvdrun r;
  REQUIRE(r.parse({"report", "--fromat", "svg", "bench.json"}) == "parsed");
  CHECK(leftovers_error(*r.commands.report_cmd, "hvdrun report") ==
        "unknown option '--fromat' (did you mean --format?); see hvdrun report --help");
}

TEST_CASE("option names: CLI11's wording becomes the option, the value and what is accepted") {
  CHECK(Hvdrun().parse({"-n", "abc", "--", "true"}) ==
        "--num-proc: 'abc' is not a whole number; give one like 4; see hvdrun --help");
  CHECK(Hvdrun().parse({"-n", "99999999999", "--", "true"}) ==
        "--num-proc: '99999999999' is too large for a whole number; give one like 4; see "
        "hvdrun --help");
  // It was "Value -1 not in range 0.000000 to 179769313486231570814527...".
  CHECK(Hvdrun().parse({"-n", "2", "--max-restarts", "-1", "--", "true"}) ==
        "--max-restarts: must be at least 0, got -1; see hvdrun --help");
  CHECK(Hvdrun().parse({"report", "--timeout", "0", "b.json"}) ==
        "--timeout: must be more than 0, got 0; see hvdrun report --help");
  CHECK(Hvdrun().parse({"predict", "--nodes", "0"}) ==
        "--nodes: must be from 1 to 100000, got 0; see hvdrun predict --help");
  // hvdrun sbatch --hvdrun-arg reads them with the run's options alone, where CLI11 throws.
  CLI::App run{"", "hvdrun"};
  hvd::launcher::config::RunOptions opts;
  cli::register_run_options(run, opts);
  std::vector<std::string> args = {"hvdrun", "--num-prc", "3"};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  try {
    run.parse(static_cast<int>(argv.size()), argv.data());
    FAIL("parsed");
  } catch (const CLI::ParseError& e) {
    CHECK(cli::parse_error_text(e, run) ==
          "unknown option '--num-prc' (did you mean --num-proc?); see hvdrun --help");
  }
  CHECK(Hvdrun().parse({"profiles", "lst"}) ==
        "'lst' is not a command of hvdrun profiles (did you mean list?); see hvdrun profiles "
        "--help");
}
