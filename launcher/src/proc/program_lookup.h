// SPDX-License-Identifier: Apache-2.0
#pragma once
// Finding the program before any rank starts, so that a typo is one clear error instead of N
// failed ranks.

#include <optional>
#include <string>

#include "env/env.h"

namespace hvd::launcher::proc {

/// Resolves `name` as execvp would: a name with a '/' is used as is, others are searched in the
/// PATH of `env`. Returns the path to execute. Throws LaunchError naming the program when it does
/// not exist, is a directory or is not executable.
std::string resolve_program(const std::string& name, const EnvMap& env);

/// The first executable file called `name` in the PATH of `env`, or nothing; for hvdrun's own
/// helpers (mpirun, gnuplot), whose absence gets its own message.
std::optional<std::string> find_in_path(const std::string& name, const EnvMap& env);

}  // namespace hvd::launcher::proc
