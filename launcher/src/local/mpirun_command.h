// SPDX-License-Identifier: Apache-2.0
#pragma once
// The mpirun command line of `hvdrun --mpi -np N -- CMD` on this machine (Open MPI's mpirun,
// the one Debian ships). Pure, so --dry-run and the launch build the same line.

#include <string>
#include <vector>

#include "config/env_map.h"

namespace hvd::launcher::local {

struct MpirunRequest {
  std::string mpirun = "mpirun";  // path or name
  int num_proc = 0;
  int cores = 0;                     // this machine's cores (Open MPI's default slot count)
  bool as_root = false;              // hvdrun runs as root
  std::string bind_to = "none";      // core, numa or none: mpirun's --bind-to
  EnvMap env;                        // exported to every rank with -x NAME=VALUE
  std::vector<std::string> command;  // the program and its arguments
};

/// mpirun -np N [--allow-run-as-root] [--oversubscribe] --bind-to B --tag-output
///        [-x NAME=VALUE]... COMMAND...
/// --allow-run-as-root only as root (Open MPI refuses root without it, and it should not be
/// passed where nobody asked for root); --oversubscribe only when N is more than the cores, as
/// Open MPI otherwise refuses with "not enough slots"; --tag-output so hvdrun can tell the
/// ranks' lines apart and tag them its own way.
std::vector<std::string> build_mpirun_command(const MpirunRequest& request);

}  // namespace hvd::launcher::local
