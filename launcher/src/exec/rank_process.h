// SPDX-License-Identifier: Apache-2.0
#pragma once
// Starting one rank: fork, set up its process group, pipes, CPU affinity and environment, exec.

#include <sys/types.h>

#include <string>
#include <vector>

#include "net/socket.h"

namespace hvd::launcher::exec {

struct SpawnRequest {
  std::string program;            // path to execute
  std::vector<std::string> argv;  // argv[0] is the program as the user wrote it
  std::vector<std::string> env;   // the complete environment, "KEY=VALUE"
  std::vector<int> cpus;          // CPUs to pin to; empty = inherit
  int guard_fd = -1;              // Guard::registration_fd(): the rank registers its group
};

/// A started rank. Its pid is also its process-group id: signals go to the whole group, so
/// helpers the rank started are stopped with it.
struct RankProcess {
  pid_t pid = -1;
  net::Fd out;         // read end of the rank's stdout
  net::Fd err;         // read end of the rank's stderr
  net::Fd exec_error;  // gets errno if exec failed; EOF once exec succeeded
};

/// Forks and execs. The child leads its own process group and registers it with the guard
/// before anything else can start in it, dies with hvdrun (PR_SET_PDEATHSIG), gets /dev/null
/// as stdin and default signal dispositions and mask. Throws LaunchError if pipe or fork fails.
RankProcess spawn_rank(const SpawnRequest& request);

/// Blocks until the child has exec'd (returns 0) or failed to (returns its errno).
int wait_for_exec(RankProcess& process);

}  // namespace hvd::launcher::exec
