// SPDX-License-Identifier: Apache-2.0
#pragma once
// A bash completion script for hvdrun (bash-completion's completions/hvdrun), from a
// CommandDoc: subcommands, each command's options, and site-profile names for --profile.

#include <string>

#include "docs/cli_model.h"

namespace hvd::launcher::docs {

/// The script; it defines _hvdrun and registers it with `complete`.
std::string render_bash_completion(const CommandDoc& root);

}  // namespace hvd::launcher::docs
