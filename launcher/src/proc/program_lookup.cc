// SPDX-License-Identifier: Apache-2.0
#include "proc/program_lookup.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sstream>

#include "hvd/error.h"

namespace hvd::launcher::proc {
namespace {

constexpr const char* kDefaultPath = "/usr/local/bin:/usr/bin:/bin";

bool is_executable_file(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(path.c_str(), X_OK) == 0;
}

void check_explicit_path(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) {
    throw LaunchError(str_cat("program '", path, "' cannot be used: ", std::strerror(errno),
                              "; check the path of the program after --"));
  }
  if (S_ISDIR(st.st_mode)) {
    throw LaunchError(
        str_cat("program '", path, "' is a directory; put the program to run after --"));
  }
  if (!S_ISREG(st.st_mode) || access(path.c_str(), X_OK) != 0) {
    throw LaunchError(str_cat("program '", path,
                              "' is not executable; chmod +x it or run it through its "
                              "interpreter (e.g. python3 ",
                              path, ")"));
  }
}

}  // namespace

std::string resolve_program(const std::string& name, const EnvMap& env) {
  if (name.empty()) throw LaunchError("the program name is empty");
  if (name.find('/') != std::string::npos) {
    check_explicit_path(name);
    return name;
  }
  if (std::optional<std::string> found = find_in_path(name, env)) return *found;
  throw LaunchError(str_cat("program '", name, "' was not found in PATH (",
                            env_string(env, "PATH", kDefaultPath),
                            "); check its spelling, or give its path (./", name, ")"));
}

std::optional<std::string> find_in_path(const std::string& name, const EnvMap& env) {
  std::stringstream dirs(env_string(env, "PATH", kDefaultPath));
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    const std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + name;
    if (is_executable_file(candidate)) return candidate;
  }
  return std::nullopt;
}

}  // namespace hvd::launcher::proc
