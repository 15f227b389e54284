// SPDX-License-Identifier: Apache-2.0
#pragma once
// Reading YAML with errors that point at the file, line and column, and the key path.

#include <initializer_list>
#include <string>
#include <string_view>

#include <yaml-cpp/yaml.h>

namespace hvd::launcher::config {

/// Parses `path` as load_yaml_text() does. Throws ConfigError "PATH: cannot read: <reason>" or
/// "PATH:LINE:COL: malformed YAML: <reason>".
YAML::Node load_yaml_file(const std::string& path);

/// Parses YAML text; `name` stands in for the file name in errors. Anchors and aliases are
/// refused (ConfigError "NAME:LINE:COL: an alias (*name): ..."), so nothing can expand them.
YAML::Node load_yaml_text(const std::string& text, const std::string& name);

/// "FILE:LINE:COL" for a node (1-based, as editors count).
std::string where(const std::string& file, const YAML::Node& node);

/// Throws ConfigError when `map` is not a mapping or holds a key outside `allowed`,
/// naming the key, its path (`section`) and the keys that are allowed.
void check_keys(const std::string& file, const YAML::Node& map, std::string_view section,
                std::initializer_list<std::string_view> allowed);

/// Converts a scalar or throws ConfigError "FILE:L:C: PATH: expected WHAT, got 'TEXT'".
int as_int(const std::string& file, const YAML::Node& node, const std::string& path);
double as_double(const std::string& file, const YAML::Node& node, const std::string& path);
bool as_bool(const std::string& file, const YAML::Node& node, const std::string& path);
std::string as_string(const std::string& file, const YAML::Node& node, const std::string& path);

}  // namespace hvd::launcher::config
