// SPDX-License-Identifier: Apache-2.0
#include "config/data_dirs.h"

#include <algorithm>
#include <filesystem>
#include <sstream>
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

namespace {

// <prefix>/bin/hvdrun -> <prefix>
std::filesystem::path install_prefix() {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path() : exe.parent_path().parent_path();
}

}  // namespace

std::vector<std::string> python_dirs(bool horovod_compat) {
  const std::filesystem::path prefix = install_prefix();
  if (prefix.empty()) return {};
  std::vector<const char*> wanted = {HVD_WHY_PYTHON_SUBDIR, HVD_PYTHON_SUBDIR};
  if (horovod_compat) wanted.push_back(HVD_HOROVOD_COMPAT_SUBDIR);
  std::vector<std::string> dirs;
  std::error_code ec;
  for (const char* sub : wanted) {
    const std::filesystem::path dir = prefix / sub;
    if (std::filesystem::is_directory(dir, ec)) dirs.push_back(dir.string());
  }
  return dirs;
}

std::string prepend_python_path(const std::vector<std::string>& dirs, const std::string& current) {
  std::vector<std::string> theirs;
  std::stringstream entries(current);
  for (std::string e; std::getline(entries, e, ':');) theirs.push_back(e);
  std::string out;
  for (const std::string& d : dirs) {
    if (std::find(theirs.begin(), theirs.end(), d) == theirs.end()) out += (out.empty() ? "" : ":") + d;
  }
  if (!current.empty()) out += (out.empty() ? "" : ":") + current;
  return out;
}

std::string defaults_file() {
  const std::string dir = data_dir();
  return dir.empty() ? std::string() : dir + "/configs/defaults.yaml";
}

}  // namespace hvd::launcher::config
