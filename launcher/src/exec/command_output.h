// SPDX-License-Identifier: Apache-2.0
#pragma once
// Running a helper program (scontrol, srun --version) for what it prints, without a shell:
// every argument reaches the program as one argv element, whatever characters it holds (a node
// name with `;` or `$(...)` is just a name), and a helper that hangs or floods is cut off.

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

#include "config/env_map.h"

namespace hvd::launcher::exec {

struct OutputLimits {
  /// The helper is killed (its process group) once this has passed.
  std::chrono::milliseconds timeout{10000};
  /// Bytes of stdout kept; past them the helper is killed, as what it says next is not needed.
  size_t max_bytes = size_t{1} << 20;
};

struct CommandOutput {
  /// Its exit code; 128+S when a signal S ended it (the kill below included); 127 when it
  /// could not be executed.
  int exit_code = -1;
  std::string out;         // its stdout, at most max_bytes
  bool timed_out = false;  // killed at the timeout
  bool cut = false;        // killed for printing more than max_bytes
};

/// Runs argv[0] (a path: no PATH search, no shell) with `argv` and exactly the environment
/// `env`, stdin and stderr on /dev/null, and collects its stdout. Its own failures are in the
/// result; throws LaunchError only when hvdrun cannot make a pipe or fork. Waits for the helper
/// from the calling thread.
CommandOutput run_for_output(const std::vector<std::string>& argv, const EnvMap& env,
                             const OutputLimits& limits = {});

}  // namespace hvd::launcher::exec
