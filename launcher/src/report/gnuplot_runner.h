// SPDX-License-Identifier: Apache-2.0
#pragma once
// Running gnuplot on a script in a scratch folder, bounded in time, and moving what it drew
// into place only when all of it was drawn: a reader of the output folder never sees a
// half-written picture, and a failed run leaves the previous pictures as they were.

#include <chrono>
#include <string>
#include <vector>

#include "config/env_map.h"

namespace hvd::launcher::report {

/// gnuplot's path from PATH in `env`. Throws LaunchError (exit 5) saying what to install.
std::string find_gnuplot(const EnvMap& env);

/// Writes `files` (name, content) and `script` into a fresh folder inside `output_dir`, runs
/// `gnuplot script` there (argv, no shell), then, once every one of `outputs` was drawn, writes
/// each into `output_dir` through hvd::files::write_file_atomically and removes the folder. Returns
/// the final paths. Throws LaunchError with gnuplot's own message when it fails, draws nothing or
/// runs past `limit`.
std::vector<std::string> render(const std::string& gnuplot, const std::string& output_dir,
                                const std::vector<std::pair<std::string, std::string>>& files,
                                const std::string& script, const std::vector<std::string>& outputs,
                                std::chrono::seconds limit);

}  // namespace hvd::launcher::report
