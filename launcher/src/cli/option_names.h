// SPDX-License-Identifier: Apache-2.0
#pragma once
// What to say about an option hvdrun does not know: a typo (--num-prc) gets the name it was
// probably meant to be, so that one line is enough to fix the command.

#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace hvd::launcher::cli {

/// Calls `visit` with each named option of `app` and every spelling of it ("--num-proc", "-n"),
/// the options of its option groups included (CLI11's get_options() leaves those out: option
/// groups are nameless subcommands).
void for_each_option_spelling(
    const CLI::App& app,
    const std::function<void(const CLI::Option& option, const std::string& spelling)>& visit);

/// Every spelling of every option of `app`, option groups included, and horovodrun's aliases.
std::vector<std::string> option_names(const CLI::App& app);

/// "unknown option '--num-prc' (did you mean --num-proc?); see hvdrun --help", naming the
/// option as given (an "--opt=value" by its option only) and `app`'s closest option.
std::string unknown_option_message(const std::string& word, const CLI::App& app,
                                   const std::string& command_name);

}  // namespace hvd::launcher::cli
