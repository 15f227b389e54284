// SPDX-License-Identifier: Apache-2.0
#pragma once
// Running an external tool (scontrol, srun --version, sbatch, gnuplot) without a shell: every
// argument reaches the program as one argv element, whatever characters it holds (a node name
// with `;` or `$(...)` is just a name), and a tool that hangs or floods is cut off. This is the
// one runner for every external tool hvdrun starts for an answer (docs/security.md, "External
// tools"): each run has a timeout and an output cap, and the tool's whole process group is
// killed when it is cut off, when it runs past the timeout, or when hvdrun gets SIGINT, SIGTERM,
// SIGHUP or SIGQUIT while it waits (the tool runs in a group of its own, which a Ctrl-C at the
// terminal does not reach; hvdrun then takes the signal as it would have without the tool).

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

#include "env/env.h"

namespace hvd::launcher::proc {

struct OutputLimits {
  /// The tool (its process group) is killed once this has passed.
  std::chrono::milliseconds timeout{10000};
  /// Bytes of stdout kept; past them the tool is killed, as what it says next is not needed.
  size_t max_bytes = size_t{1} << 20;
  /// Bytes of stderr kept when it is captured; the rest is read and dropped (err_cut).
  size_t max_err_bytes = size_t{64} << 10;
};

/// What the tool gets besides argv and env. The defaults: stdin and stderr on /dev/null, the
/// caller's working folder.
struct CommandInput {
  /// Written to its stdin, which is then closed; empty: stdin is /dev/null.
  std::string stdin_bytes;
  /// Keep its stderr (up to max_err_bytes) in CommandOutput::err.
  bool capture_stderr = false;
  /// A folder open in the caller: the tool starts there (fchdir), so a rename of the folder's
  /// path cannot send it elsewhere. -1: the caller's working folder.
  int cwd_fd = -1;
};

struct CommandOutput {
  /// Its exit code; 128+S when a signal S ended it (the kill below included); 127 when it
  /// could not be executed.
  int exit_code = -1;
  std::string out;         // its stdout, at most max_bytes
  std::string err;         // its stderr when captured, at most max_err_bytes
  bool timed_out = false;  // killed at the timeout
  bool cut = false;        // killed for printing more than max_bytes
  bool err_cut = false;    // stderr was longer than max_err_bytes (the tool was not killed)
};

/// Runs argv[0] (a path: no PATH search, no shell) with `argv` and exactly the environment
/// `env`, and collects its stdout (and its stderr when asked). Its own failures are in the
/// result; throws LaunchError only when hvdrun cannot make a pipe or fork. Waits for the tool
/// from the calling thread. A SIGINT, SIGTERM, SIGHUP or SIGQUIT that arrives meanwhile kills
/// the tool's group and is then raised again in hvdrun (which ends it, unless a handler runs).
CommandOutput run_for_output(const std::vector<std::string>& argv, const EnvMap& env,
                             const OutputLimits& limits = {}, const CommandInput& input = {});

}  // namespace hvd::launcher::proc
