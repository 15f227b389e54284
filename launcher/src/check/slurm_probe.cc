// SPDX-License-Identifier: Apache-2.0
#include "check/slurm_probe.h"

#include <unistd.h>

#include <filesystem>

#include "hvd/error.h"
#include "proc/command_output.h"
#include "proc/program_lookup.h"

namespace hvd::launcher::check {
namespace {

// The first line `srun --version` prints under `env`, without its newline; empty if it fails.
std::string version_line(const std::string& srun, const EnvMap& env) {
  const proc::CommandOutput said = proc::run_for_output({srun, "--version"}, env);
  if (said.exit_code != 0) return {};
  std::string line = said.out.substr(0, said.out.find('\n'));
  while (!line.empty() && line.back() == ' ') line.pop_back();
  return line;
}

std::string version_with_throwaway_config(const std::string& srun, EnvMap env) {
  std::string path = (std::filesystem::temp_directory_path() / "hvdrun-slurm-XXXXXX").string();
  const int fd = mkstemp(path.data());
  if (fd < 0) return {};
  const std::string text = "ClusterName=probe\nSlurmctldHost=localhost\n";
  const bool written = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  close(fd);
  env["SLURM_CONF"] = path;
  const std::string version = written ? version_line(srun, env) : std::string();
  unlink(path.c_str());
  return version;
}

}  // namespace

SrunInfo probe_srun(const EnvMap& env) {
  SrunInfo info;
  try {
    info.path = proc::resolve_program("srun", env);
  } catch (const LaunchError&) {
    return info;
  }
  info.version = version_line(info.path, env);
  if (info.version.empty()) info.version = version_with_throwaway_config(info.path, env);
  return info;
}

}  // namespace hvd::launcher::check
