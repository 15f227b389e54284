// SPDX-License-Identifier: Apache-2.0
#include "cli/why_node_cmd.h"

#include <iostream>

#include "exec/shm_cleanup.h"
#include "hvd/env_keys.h"
#include "hvd/error.h"
#include "why/node_agent.h"
#include "why/rank_dir.h"

namespace hvd::launcher::cli {

CLI::App* register_why_node(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand(
      "why-node", "Inside an srun task of hvdrun's: make this node's ranks answer hvdrun why");
  cmd->group("");  // hidden: hvdrun starts it itself
  return cmd;
}

int run_why_node(const EnvMap& env) {
  const auto run_id = env.find(env::kRunId);
  if (run_id == env.end() || !exec::valid_run_id(run_id->second)) {
    throw UsageError(str_cat("hvdrun why-node: ", env::kRunId,
                             " is missing or malformed; hvdrun starts this command itself"));
  }
  why::NodeAgentInput input;
  input.run_id = run_id->second;
  input.node = why::node_name(env);
  input.env = env;
  try {
    why::answer_for_node(input);
  } catch (const Error& e) {
    std::cerr << "hvdrun why-node on " << input.node << ": " << e.what() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace hvd::launcher::cli
