// SPDX-License-Identifier: Apache-2.0
#include "slurm/node_address.h"

#include <netdb.h>

#include <array>
#include <cstdio>

#include "hvd/error.h"
#include "slurm/slurm_tools.h"
#include "slurm/srun_command.h"

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
  std::string output;
  const std::string command = shell_join({scontrol, "show", "node", node}) + " 2>/dev/null";
  if (FILE* pipe = popen(command.c_str(), "r")) {
    std::array<char, 4096> buffer{};
    while (fgets(buffer.data(), buffer.size(), pipe) != nullptr) output += buffer.data();
    pclose(pipe);
  }
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
