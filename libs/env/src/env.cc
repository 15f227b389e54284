// SPDX-License-Identifier: Apache-2.0
#include "env/env.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>

#include "hvd/error.h"
#include "hvd/str_cat.h"

extern char** environ;  // POSIX; read by process_env() once, by current_process_env() each time

namespace hvd {
namespace {

// "KEY='value'" for messages.
std::string quoted(const std::string& key, const std::string& value) {
  return str_cat(key, "='", value, "'");
}

const std::string* find_set(const EnvMap& env, const std::string& key) {
  const auto it = env.find(key);
  return it == env.end() || it->second.empty() ? nullptr : &it->second;
}

int64_t parse_int64(const std::string& key, const std::string& text, int64_t min, int64_t max) {
  int64_t value = 0;
  const char* begin = text.data();
  const char* end = begin + text.size();
  if (begin != end && *begin == '+') ++begin;  // from_chars takes '-' but not '+'
  const auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec != std::errc() || ptr != end || begin == end) {
    throw ConfigError(str_cat(quoted(key, text), " is not an integer"));
  }
  if (value < min || value > max) {
    throw ConfigError(str_cat(quoted(key, text), " is out of range [", min, ", ", max, "]"));
  }
  return value;
}

}  // namespace

const EnvMap& process_env() {
  // A function-local static: initialised once, thread-safe since C++11.
  static const EnvMap snapshot = env_from_array(environ);
  return snapshot;
}

EnvMap current_process_env() { return env_from_array(environ); }

EnvMap env_from_array(const char* const* entries) {
  EnvMap env;
  for (const char* const* p = entries; p != nullptr && *p != nullptr; ++p) {
    const std::string entry(*p);
    const size_t eq = entry.find('=');
    if (eq != std::string::npos && eq > 0) env.emplace(entry.substr(0, eq), entry.substr(eq + 1));
  }
  return env;
}

bool env_has(const EnvMap& env, const std::string& key) { return find_set(env, key) != nullptr; }

std::string env_string(const EnvMap& env, const std::string& key, const std::string& fallback) {
  const std::string* value = find_set(env, key);
  return value != nullptr ? *value : fallback;
}

const std::string& env_required(const EnvMap& env, const std::string& key, const std::string& why) {
  const std::string* value = find_set(env, key);
  if (value == nullptr) throw ConfigError(str_cat(key, " is not set: ", why));
  return *value;
}

int64_t env_int64(const EnvMap& env, const std::string& key, int64_t fallback, int64_t min,
                  int64_t max) {
  const std::string* value = find_set(env, key);
  return value == nullptr ? fallback : parse_int64(key, *value, min, max);
}

int env_int(const EnvMap& env, const std::string& key, int fallback, int min, int max) {
  return static_cast<int>(env_int64(env, key, fallback, min, max));
}

int env_required_int(const EnvMap& env, const std::string& key, int min, int max,
                     const std::string& why) {
  return static_cast<int>(parse_int64(key, env_required(env, key, why), min, max));
}

double env_double(const EnvMap& env, const std::string& key, double fallback, double min,
                  double max) {
  const std::string* value = find_set(env, key);
  if (value == nullptr) return fallback;
  // strtod rather than from_chars: libstdc++ 11 lacks the floating-point overloads.
  const char* begin = value->c_str();
  char* end = nullptr;
  errno = 0;
  const double parsed = std::strtod(begin, &end);
  if (end == begin || *end != '\0' || errno == ERANGE || !std::isfinite(parsed) ||
      std::isspace(static_cast<unsigned char>(*begin))) {
    throw ConfigError(str_cat(quoted(key, *value), " is not a number"));
  }
  if (parsed < min || parsed > max) {
    throw ConfigError(str_cat(quoted(key, *value), " is out of range [", min, ", ", max, "]"));
  }
  return parsed;
}

bool env_bool(const EnvMap& env, const std::string& key, bool fallback) {
  const std::string* value = find_set(env, key);
  if (value == nullptr) return fallback;
  std::string lower = *value;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lower == "1" || lower == "true" || lower == "yes" || lower == "on") return true;
  if (lower == "0" || lower == "false" || lower == "no" || lower == "off") return false;
  throw ConfigError(
      str_cat(quoted(key, *value), " is not a boolean (use 1/0, true/false, yes/no or on/off)"));
}

std::string env_choice(const EnvMap& env, const std::string& key,
                       const std::vector<std::string>& choices, const std::string& fallback) {
  const std::string* value = find_set(env, key);
  if (value == nullptr) return fallback;
  if (std::find(choices.begin(), choices.end(), *value) != choices.end()) return *value;
  std::string list;
  for (const std::string& c : choices) list += (list.empty() ? "" : ", ") + c;
  throw ConfigError(str_cat(quoted(key, *value), " is not one of: ", list));
}

}  // namespace hvd
