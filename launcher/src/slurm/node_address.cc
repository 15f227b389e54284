// SPDX-License-Identifier: Apache-2.0
#include "slurm/node_address.h"

#include <netdb.h>

#include "exec/command_output.h"
#include "hvd/error.h"
#include "slurm/slurm_tools.h"

namespace hvd::launcher::slurm {
namespace {

bool resolves(const std::string& name) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* result = nullptr;
  const int rc = getaddrinfo(name.c_str(), nullptr, &hints, &result);
  if (result != nullptr) freeaddrinfo(result);
  return rc == 0;
}

std::string scontrol_node_addr(const std::string& node, const EnvMap& env) {
  std::string scontrol;
  try {
    scontrol = find_slurm_tool("scontrol", env);
  } catch (const SchedulerError&) {
    return {};
  }
  // No shell: the node name, whatever it holds, is one argument of scontrol's.
  const std::string output = exec::run_for_output({scontrol, "show", "node", node}, env).out;
  const auto at = output.find("NodeAddr=");
  if (at == std::string::npos) return {};
  const auto start = at + 9;
  return output.substr(start, output.find_first_of(" \n", start) - start);
}

}  // namespace

std::string node_address(const std::string& node, const EnvMap& env) {
  if (resolves(node)) return node;
  const std::string addr = scontrol_node_addr(node, env);
  return addr.empty() ? node : addr;
}

}  // namespace hvd::launcher::slurm
