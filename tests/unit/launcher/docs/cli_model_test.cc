// SPDX-License-Identifier: Apache-2.0
#include "docs/cli_model.h"

#include <algorithm>
#include <set>

#include <doctest/doctest.h>

#include "cli/commands.h"
#include "cli/run_cmd.h"
#include "docs/bash_completion.h"
#include "docs/man_page.h"

namespace cli = hvd::launcher::cli;
namespace docs = hvd::launcher::docs;

namespace {

const docs::CommandDoc* find_sub(const docs::CommandDoc& cmd, const std::string& name) {
  for (const docs::CommandDoc& sub : cmd.subcommands) {
    if (sub.path.back() == name) return &sub;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("cli model: every option hvdrun parses is documented, option groups' too") {
  CLI::App app{"", "hvdrun"};
  cli::Commands commands;
  cli::register_commands(app, commands);
  const docs::CommandDoc root = docs::describe(app);
  const std::vector<std::string> names = docs::option_names(root);
  const std::set<std::string> documented(names.begin(), names.end());
  // The parser's own list of options that take a value, which walks option groups.
  for (const std::string& name : cli::options_taking_value(app)) {
    CHECK_MESSAGE(documented.count(name) == 1, name);
  }
  CHECK(documented.count("--cycle-time-ms") == 1);   // in the nameless "Tunables" group
  CHECK(documented.count("--no-stall-check") == 1);  // a flag in that group
  CHECK(documented.count("--check-build") == 1);
  const auto tunables = std::find_if(root.groups.begin(), root.groups.end(), [](const auto& g) {
    return g.title.rfind("Tunables", 0) == 0;
  });
  REQUIRE(tunables != root.groups.end());

  const docs::CommandDoc* profiles = find_sub(root, "profiles");
  REQUIRE(profiles != nullptr);
  const docs::CommandDoc* show = find_sub(*profiles, "show");
  REQUIRE(show != nullptr);
  CHECK(show->path == std::vector<std::string>{"profiles", "show"});
  REQUIRE(find_sub(root, "sbatch") != nullptr);
  const std::vector<std::string> sbatch = docs::option_names(*find_sub(root, "sbatch"));
  CHECK(std::count(sbatch.begin(), sbatch.end(), "--partition") == 1);
}

TEST_CASE("man page and bash completion: escaped for roff, every command present") {
  CLI::App app{"", "hvdrun"};
  cli::Commands commands;
  cli::register_commands(app, commands);
  const docs::CommandDoc root = docs::describe(app);
  const std::string page = docs::render_man_page(root, "run a program", "1.2.3");
  CHECK(page.find(".TH HVDRUN 1 \"\" \"hvdrun 1.2.3\"") != std::string::npos);
  CHECK(page.find("\\fB\\-\\-cycle\\-time\\-ms\\fR \\fI") != std::string::npos);  // a value
  CHECK(page.find(".SS hvdrun profiles validate") != std::string::npos);
  // The synopsis is the usage without --help's label; the description says more than NAME.
  CHECK(page.find(".SH SYNOPSIS\n.nf\nhvdrun \\-np N [options] \\-\\- PROGRAM") != std::string::npos);
  CHECK(page.find("Usage:") == std::string::npos);
  const size_t description = page.find(".SH DESCRIPTION\n");
  REQUIRE(description != std::string::npos);
  CHECK(page.find("run a program", description) == std::string::npos);
  CHECK(page.find("srun step whose tasks are the ranks", description) != std::string::npos);
  // No line of text may start a roff request by accident.
  CHECK(page.find("\n'") == std::string::npos);
  const std::string completion = docs::render_bash_completion(root);
  CHECK(completion.find("complete -o default -F _hvdrun hvdrun") != std::string::npos);
  CHECK(completion.find("\"profiles show\")") != std::string::npos);
}
