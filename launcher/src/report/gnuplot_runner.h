// SPDX-License-Identifier: Apache-2.0
#pragma once
// Running gnuplot on a script in a private scratch folder, bounded in time, and moving what it
// drew into place only when all of it was drawn: a reader of the output folder never sees a
// half-written picture, and a failed run leaves the previous pictures as they were.
//
// Nothing gnuplot reads or runs is in the output folder: the scratch folder is made under the
// temporary folder (report/scratch_dir.h), and the output folder must be the user's own
// (files/owned_dir.h), so another user who can write it can neither plant a script nor
// replace the pictures.

#include <chrono>
#include <string>
#include <vector>

#include "config/env_map.h"

namespace hvd::launcher::report {

/// gnuplot's path from PATH in `env`. Throws LaunchError (exit 5) saying what to install.
std::string find_gnuplot(const EnvMap& env);

/// What render() works with.
struct RenderJob {
  std::string gnuplot;         // its path (find_gnuplot)
  std::string output_dir;      // -o: the user's own folder, created when missing
  std::string scratch_parent;  // where the scratch folder is made (temp_parent($TMPDIR))
  std::vector<std::pair<std::string, std::string>> files;  // data files: name, content
  std::string script;                                      // run as report.gp
  std::vector<std::string> outputs;                        // the pictures it must draw
  std::chrono::seconds limit{60};
};

/// Checks the output folder, writes the files and the script into a fresh private scratch
/// folder, runs `gnuplot report.gp` there (proc::run_for_output: argv, no shell, `env`), then,
/// once every output was drawn, writes each into the output folder through
/// hvd::files::write_file_atomically and removes the scratch folder. Returns the final paths.
/// Throws LaunchError when the output folder is another user's or a symlink, or with gnuplot's
/// own message when it fails, draws nothing or runs past the limit.
std::vector<std::string> render(const RenderJob& job, const EnvMap& env);

}  // namespace hvd::launcher::report
