// SPDX-License-Identifier: Apache-2.0
#pragma once
// EnvMap: an environment as a value, and typed getters over it. env.cc is the only file of the
// runtime that reads the process environment (house style 2.2); everything else takes an
// EnvMap, so that tests can hand any environment to any parser.
//
// Everywhere below, a variable set to the empty string counts as unset: launchers and job
// scripts often export VAR= to "clear" a value. Malformed values are never ignored: they throw
// ConfigError naming the variable, its value and what was expected.

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

namespace hvd {

using EnvMap = std::map<std::string, std::string>;

/// The process environment, copied on the first call and never read again (later setenv()
/// calls are not seen). Thread-safe.
const EnvMap& process_env();

/// The process environment as it is now. hvd::init() reads it, so that what a script sets
/// before init(), or between shutdown() and the next init(), counts, as Horovod's getenv()
/// at init does. Not safe against a setenv() in another thread at the same time.
EnvMap current_process_env();

/// Copies a NULL-terminated environ-style array of "KEY=value" entries; entries without '='
/// are skipped, and for a repeated key the first entry wins (as getenv() would return).
EnvMap env_from_array(const char* const* entries);

/// Whether `key` is set to a non-empty value.
bool env_has(const EnvMap& env, const std::string& key);

/// The value of `key`, or `fallback` when it is unset.
std::string env_string(const EnvMap& env, const std::string& key, const std::string& fallback);

/// The value of `key`. Throws ConfigError "KEY is not set: <why>" when it is unset.
const std::string& env_required(const EnvMap& env, const std::string& key, const std::string& why);

/// A decimal integer in [min, max], or `fallback` when unset. Throws ConfigError naming the
/// variable, the value and the range when it is not one.
int64_t env_int64(const EnvMap& env, const std::string& key, int64_t fallback,
                  int64_t min = std::numeric_limits<int64_t>::min(),
                  int64_t max = std::numeric_limits<int64_t>::max());
int env_int(const EnvMap& env, const std::string& key, int fallback,
            int min = std::numeric_limits<int>::min(), int max = std::numeric_limits<int>::max());

/// A decimal integer in [min, max] that must be set; `why` ends the "not set" message.
int env_required_int(const EnvMap& env, const std::string& key, int min, int max,
                     const std::string& why);

/// A number such as "2.5" or "1e3" in [min, max], or `fallback` when unset.
double env_double(const EnvMap& env, const std::string& key, double fallback,
                  double min = std::numeric_limits<double>::lowest(),
                  double max = std::numeric_limits<double>::max());

/// 1/0, true/false, yes/no or on/off (any letter case), or `fallback` when unset.
bool env_bool(const EnvMap& env, const std::string& key, bool fallback);

/// One of `choices` (exact, case-sensitive), or `fallback` when unset. Throws ConfigError
/// listing the choices.
std::string env_choice(const EnvMap& env, const std::string& key,
                       const std::vector<std::string>& choices, const std::string& fallback);

}  // namespace hvd
