// SPDX-License-Identifier: Apache-2.0
#pragma once
// `hvdrun why [--pid PID] [--json]`: from another shell of the same user, the verdict of a
// running job: where each rank is and which one holds the others up (launcher/src/why/).
// It finds the job in the user's private folder of running jobs (why/job_dir.h), sends that
// hvdrun SIGQUIT, and prints the verdict hvdrun writes there.

#include <ostream>

#include <CLI/CLI.hpp>

namespace hvd::launcher::cli {

struct WhyOptions {
  int pid = 0;  // 0: the only running job
  bool json = false;
  double timeout_s = 30;
};

CLI::App* register_why(CLI::App& app, WhyOptions& o);

/// Prints the verdict to `out` and returns 0. UsageError when no job, or several and no --pid;
/// TimeoutError when hvdrun wrote no verdict in time.
int run_why(const WhyOptions& o, std::ostream& out);

}  // namespace hvd::launcher::cli
