// SPDX-License-Identifier: Apache-2.0
#pragma once
// CLI11's own wording for a bad command line ("Could not convert: --num-proc = abc", "Value -1
// not in range 0.000000 to 1.797693e+308") says neither what was expected nor what to do. This
// turns it into hvdrun's one line: the option, the value, and what would be accepted.

#include <string>

#include <CLI/CLI.hpp>

namespace hvd::launcher::cli {

/// The text after "hvdrun: error: " for a parse error of `app` (the top-level app), ending in
/// "; see hvdrun [COMMAND] --help".
std::string parse_error_text(const CLI::ParseError& error, const CLI::App& app);

}  // namespace hvd::launcher::cli
