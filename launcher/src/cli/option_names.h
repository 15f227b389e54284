// SPDX-License-Identifier: Apache-2.0
#pragma once
// What to say about an option hvdrun does not know: a typo (--num-prc) gets the name it was
// probably meant to be, so that one line is enough to fix the command.

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace hvd::launcher::cli {

/// Every spelling of every option of `app` ("--num-proc", "-n"), option groups included.
std::vector<std::string> option_names(const CLI::App& app);

/// "unknown option '--num-prc' (did you mean --num-proc?); see hvdrun --help", naming the
/// option as given (an "--opt=value" by its option only) and `app`'s closest option.
std::string unknown_option_message(const std::string& word, const CLI::App& app,
                                   const std::string& command_name);

}  // namespace hvd::launcher::cli
