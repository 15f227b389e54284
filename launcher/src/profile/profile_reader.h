// SPDX-License-Identifier: Apache-2.0
#pragma once
// Reader: how profile_schema.cc and profile_cross_checks.cc read values of a merged profile
// (profile_merge.h), with every error naming the file, line, column and key path of the value.
// Private to profile/.

#include <algorithm>
#include <climits>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "config/yaml_file.h"
#include "hvd/error.h"
#include "profile/profile_merge.h"
#include "util/script_text.h"

namespace hvd::launcher::profile {

/// Converts and checks values of one merged profile. Borrows `origins`, which must outlive it.
class Reader {
 public:
  explicit Reader(const ProfileOrigins& origins) : origins_(origins) {}

  const std::string& file(const std::string& path) const { return origins_.file_of(path); }

  /// Throws ConfigError "FILE:LINE:COL: PATH: WHAT" for the value `node` at `path`.
  [[noreturn]] void fail(const std::string& path, const YAML::Node& node,
                         const std::string& what) const {
    throw ConfigError(str_cat(config::where(file(path), node), ": ",
                              path.empty() ? "the file" : path, ": ", what));
  }
  [[noreturn]] void missing(const std::string& path) const {
    throw ConfigError(str_cat(origins_.where_key(path), ": ", path, ": required, but not given"));
  }
  // No string of a profile may hold a control character: its values become #SBATCH lines,
  // script comments and `profiles list` rows, where a newline would start a line of its own.
  std::string text(const YAML::Node& n, const std::string& path) const {
    std::string v = config::as_string(file(path), n, path);
    if (util::find_control_char(v) != std::string::npos) {
      fail(path, n, str_cat("holds ", util::describe_control_char(v), "; give one line"));
    }
    return v;
  }
  int number(const YAML::Node& n, const std::string& path, int min, int max) const {
    const int v = config::as_int(file(path), n, path);
    if (v < min || v > max) {
      fail(path, n,
           max == INT_MAX ? str_cat(v, " is below the minimum ", min)
                          : str_cat(v, " is outside ", min, "..", max));
    }
    return v;
  }
  bool flag(const YAML::Node& n, const std::string& path) const {
    return config::as_bool(file(path), n, path);
  }
  std::vector<YAML::Node> items(const YAML::Node& n, const std::string& path) const {
    if (!n.IsSequence()) fail(path, n, str_cat("expected a list, got ", describe(n)));
    return std::vector<YAML::Node>(n.begin(), n.end());
  }
  void keys(const YAML::Node& map, const std::string& path,
            const std::vector<std::string>& allowed) const {
    if (!map.IsMap()) fail(path, map, str_cat("expected a mapping, got ", describe(map)));
    for (const auto& kv : map) {
      const std::string key = kv.first.Scalar();
      if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
      std::string list;
      for (const std::string& a : allowed) list += (list.empty() ? "" : ", ") + a;
      const std::string full = join_key(path, key);
      throw ConfigError(
          str_cat(origins_.where_key(full), ": unknown key '", full, "' (known here: ", list, ")"));
    }
  }

 private:
  const ProfileOrigins& origins_;
};

}  // namespace hvd::launcher::profile
