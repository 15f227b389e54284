// SPDX-License-Identifier: Apache-2.0
#include "config/data_dirs.h"

#include <filesystem>
#include <system_error>

namespace hvd::launcher::config {

std::string data_dir() {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  // <prefix>/bin/hvdrun -> <prefix>/share/hvdrun
  const std::filesystem::path dir = exe.parent_path().parent_path() / HVD_DATA_SUBDIR;
  return std::filesystem::is_directory(dir, ec) ? dir.string() : std::string();
}

std::string defaults_file() {
  const std::string dir = data_dir();
  return dir.empty() ? std::string() : dir + "/configs/defaults.yaml";
}

}  // namespace hvd::launcher::config
