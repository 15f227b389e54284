// SPDX-License-Identifier: Apache-2.0
#pragma once
// A plain description of a CLI11 command tree (options by group, subcommands), read off the
// real CLI::App that hvdrun registers, so that the man page and the bash completion are
// generated from the same definitions as the parser and cannot drift from it.

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace hvd::launcher::docs {

struct OptionDoc {
  std::vector<std::string> names;  // "-n", "--num-proc"; a positional's name alone
  std::string value;               // "INT", "TEXT", ...; empty for a flag
  std::string help;
  bool positional = false;
};

struct OptionGroupDoc {
  std::string title;  // "Options", or an option group's title
  std::vector<OptionDoc> options;
};

struct CommandDoc {
  std::vector<std::string> path;  // {} for hvdrun itself, {"profiles", "show"} for a subcommand
  std::string description;
  std::string footer;
  std::vector<OptionGroupDoc> groups;
  std::vector<CommandDoc> subcommands;
};

/// Walks `app`: its options (those of nameless option groups too, which CLI11's get_options()
/// leaves out), then each named subcommand, depth first.
CommandDoc describe(const CLI::App& app);

/// Every option name that `cmd` itself accepts (not its subcommands'), in order of appearance.
std::vector<std::string> option_names(const CommandDoc& cmd);

}  // namespace hvd::launcher::docs
