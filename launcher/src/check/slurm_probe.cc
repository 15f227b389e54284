// SPDX-License-Identifier: Apache-2.0
#include "check/slurm_probe.h"

#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>

#include "exec/program_lookup.h"
#include "hvd/error.h"

namespace hvd::launcher::check {
namespace {

// The first line `command` prints, without its newline; empty if it fails.
std::string first_line_of(const std::string& command) {
  std::string line;
  if (FILE* pipe = popen(command.c_str(), "r")) {
    std::array<char, 256> buffer{};
    if (fgets(buffer.data(), buffer.size(), pipe) != nullptr) line = buffer.data();
    if (pclose(pipe) != 0) line.clear();
  }
  while (!line.empty() && (line.back() == '\n' || line.back() == ' ')) line.pop_back();
  return line;
}

std::string version_with_throwaway_config(const std::string& srun) {
  std::string path = (std::filesystem::temp_directory_path() / "hvdrun-slurm-XXXXXX").string();
  const int fd = mkstemp(path.data());
  if (fd < 0) return {};
  const std::string text = "ClusterName=probe\nSlurmctldHost=localhost\n";
  const bool written = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  close(fd);
  const std::string version =
      written ? first_line_of("SLURM_CONF='" + path + "' '" + srun + "' --version 2>/dev/null")
              : std::string();
  unlink(path.c_str());
  return version;
}

}  // namespace

SrunInfo probe_srun(const EnvMap& env) {
  SrunInfo info;
  try {
    info.path = exec::resolve_program("srun", env);
  } catch (const LaunchError&) {
    return info;
  }
  info.version = first_line_of("'" + info.path + "' --version 2>/dev/null");
  if (info.version.empty()) info.version = version_with_throwaway_config(info.path);
  return info;
}

}  // namespace hvd::launcher::check
