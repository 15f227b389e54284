// SPDX-License-Identifier: Apache-2.0
#pragma once
// `hvdrun why-node`: the task hvdrun starts on each node of a Slurm step for a verdict
// (why/node_agent.h). Not for users: hvdrun writes its srun line and its environment (the
// run id, the store and its secret), so it is left out of --help.

#include <CLI/CLI.hpp>

#include "config/env_map.h"

namespace hvd::launcher::cli {

CLI::App* register_why_node(CLI::App& app);

/// Makes this node's ranks of the run (HVD_RUN_ID) answer; returns 0, or 1 with one line on
/// stderr when the run's store cannot be reached. UsageError without HVD_RUN_ID.
int run_why_node(const EnvMap& env);

}  // namespace hvd::launcher::cli
