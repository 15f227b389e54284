// SPDX-License-Identifier: Apache-2.0
#pragma once
// hvdrun's exit codes, one per kind of failure, so scripts can tell them apart.

#include "hvd/error.h"

namespace hvd::launcher::cli {

inline constexpr int kExitUsage = 2;      // bad command line
inline constexpr int kExitConfig = 3;     // bad config file, hostfile or profile
inline constexpr int kExitScheduler = 4;  // Slurm refused or is missing
inline constexpr int kExitLaunch = 5;     // ranks could not be started
inline constexpr int kExitInternal = 70;  // a bug in hvdrun (EX_SOFTWARE)
// The job hung and hvdrun stopped it (exec/why_service.h, kExitHung = 7).
// hvdrun preflight --strict found a slow or broken node or link (not 1, which a failing rank
// may return; 6 is next after hvdrun's own).
inline constexpr int kExitPreflightFlagged = 6;
// 8: --idle-timeout stopped a silent job (exec::kIdleTimeoutExitCode, exec/idle_watch.h). 7 is
// left for the stall shutdown of the hang verdict.

inline int exit_code_for(ErrorCode code) {
  switch (code) {
    case ErrorCode::kUsage: return kExitUsage;
    case ErrorCode::kConfig: return kExitConfig;
    case ErrorCode::kScheduler: return kExitScheduler;
    case ErrorCode::kLaunch:
    case ErrorCode::kBootstrap:
    case ErrorCode::kBackend:
    case ErrorCode::kTimeout: return kExitLaunch;
    case ErrorCode::kInternal: return kExitInternal;
  }
  return kExitInternal;
}

/// The exit-code table for --help.
inline constexpr const char* kExitCodeHelp =
    "Exit codes:\n"
    "  0        all ranks exited 0\n"
    "  N        the exit code of the first rank that failed (128+S if it died from signal S);\n"
    "           with --max-restarts, of the first rank that failed in the last attempt\n"
    "  128+S    hvdrun itself was stopped by signal S (forwarded to the ranks)\n"
    "  2        usage error (unknown flag, bad value, missing program)\n"
    "  3        configuration error (config file, hostfile)\n"
    "  4        scheduler error\n"
    "  5        launch error (program not found or not executable, cannot start ranks)\n"
    "  6        hvdrun preflight --strict: a node or link was flagged; in a run, the code\n"
    "           hvdrun.torch and hvd-train exit with when --verify-every found ranks holding\n"
    "           different parameters\n"
    "  7        the job hung: the verdict (hvdrun why) stood for the stall shutdown time\n"
    "           (--stall-check-shutdown-time-seconds, default 600; 0: never) and hvdrun\n"
    "           stopped it, writing the verdict to hvdrun-why-PID.json (or\n"
    "           OUTPUT_DIR/hvdrun-why.json); --max-restarts starts it again\n"
    "  8        --idle-timeout: no rank wrote output for that long; the job was stopped\n"
    "  70       internal error in hvdrun (please report it)\n"
    "Restarts (--max-restarts N, torchrun's rules):\n"
    "  when a rank fails, all ranks are stopped and started again from a new rendezvous (new\n"
    "  store, secret and HVD_RUN_ID), at most N times; each rank sees the attempt number in\n"
    "  TORCHELASTIC_RESTART_COUNT (0 first). A clean exit of all ranks ends the job; a signal to\n"
    "  hvdrun (SIGINT, SIGTERM, ...) never restarts it, nor does a preemption notice (SIGUSR1/2):\n"
    "  with --requeue-on-signal the job is requeued instead once every rank has exited 0.\n";

/// The exit-code table for --help of the commands that start no ranks (report, predict,
/// profiles, sbatch): the run's table would speak of ranks and restarts they never have.
inline constexpr const char* kToolExitCodeHelp =
    "Exit codes:\n"
    "  0        done\n"
    "  2        usage error (unknown flag, bad value)\n"
    "  3        an input file or profile is missing, unreadable or not what it should be\n"
    "  4        scheduler error (sbatch --submit: Slurm refused the script or is missing)\n"
    "  5        a program it needs could not run (gnuplot for report), or its output could not\n"
    "           be written\n"
    "  70       internal error in hvdrun (please report it)\n";

}  // namespace hvd::launcher::cli
