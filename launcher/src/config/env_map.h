// SPDX-License-Identifier: Apache-2.0
#pragma once
// EnvMap: an environment as a value. Parsers take one instead of calling getenv, so tests can
// hand them any environment; only main() reads the real one (env_from_environ).

#include <map>
#include <string>

namespace hvd::launcher {

using EnvMap = std::map<std::string, std::string>;

/// Copies a NULL-terminated `environ`-style array into an EnvMap.
inline EnvMap env_from_environ(char** envp) {
  EnvMap env;
  for (char** p = envp; p != nullptr && *p != nullptr; ++p) {
    const std::string entry(*p);
    const auto eq = entry.find('=');
    if (eq != std::string::npos) env.emplace(entry.substr(0, eq), entry.substr(eq + 1));
  }
  return env;
}

/// The value of `key`, or `fallback` when it is unset.
inline std::string env_or(const EnvMap& env, const std::string& key, const std::string& fallback) {
  const auto it = env.find(key);
  return it == env.end() ? fallback : it->second;
}

}  // namespace hvd::launcher
