// SPDX-License-Identifier: Apache-2.0
#include "local/mpirun_command.h"

namespace hvd::launcher::local {

std::vector<std::string> build_mpirun_command(const MpirunRequest& r) {
  std::vector<std::string> argv = {r.mpirun, "-np", std::to_string(r.num_proc)};
  if (r.as_root) argv.push_back("--allow-run-as-root");
  if (r.num_proc > r.cores) argv.push_back("--oversubscribe");
  argv.insert(argv.end(), {"--bind-to", r.bind_to, "--tag-output"});
  for (const auto& [name, value] : r.env) argv.insert(argv.end(), {"-x", name + "=" + value});
  argv.insert(argv.end(), r.command.begin(), r.command.end());
  return argv;
}

}  // namespace hvd::launcher::local
