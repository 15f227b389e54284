// SPDX-License-Identifier: Apache-2.0
#pragma once
// Ending the way a child ended: `hvdrun exec-rank` waits for its rank, cleans up after it, and
// must then look to srun (and so to hvdrun) exactly as the rank would have: the same exit code,
// or death by the same signal.

namespace hvd::launcher::exec {

/// How a process ended: killed by `signal` when it is not 0, else exited with `exit_code`.
struct Ending {
  int exit_code = 0;
  int signal = 0;
};

/// The Ending that waitpid's `wait_status` describes (a stopped or continued status counts as
/// an exit with 128+signal, which a caller waiting without WUNTRACED never sees).
Ending ending_of(int wait_status);

/// Ends this process as `ending` says: _exit(exit_code), or the signal with its default action
/// (unblocked, without a core file of this process). Only when that signal does not end a
/// process by default, _exit(128 + signal).
[[noreturn]] void end_as(const Ending& ending);

}  // namespace hvd::launcher::exec
