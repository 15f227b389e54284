// SPDX-License-Identifier: Apache-2.0
#pragma once
// `hvdrun --check-build`: what this build has and what this machine can load, in horovodrun's
// layout (anchors.md §1) with hvdrun's own sections, or as JSON.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/env_map.h"
#include "profile/profile_catalog.h"

namespace hvd::launcher::check {

struct Feature {
  std::string name;
  bool built = false;     // compiled into this build
  bool loadable = false;  // its libraries load on this machine
  std::string detail;     // version, or why it is not available
  bool available() const { return built && loadable; }
};

struct BuildReport {
  std::string version;
  std::vector<Feature> frameworks;
  std::vector<Feature> controllers;
  std::vector<Feature> tensor_operations;
  std::vector<Feature> launchers;
  /// The embedded `local` profile first, then the files in the order and with the shadowing of
  /// `hvdrun profiles list` (profile::list_profiles).
  std::vector<profile::ProfileEntry> profiles;
};

/// Probes the libraries named at configure time with dlopen, looks for srun in PATH (and asks
/// it its version), and lists the site profiles in the search path, loading each to tell the
/// broken ones (a broken profile is listed with its error, not thrown).
BuildReport gather_build_report(const EnvMap& env);

std::string format_text(const BuildReport& report);
nlohmann::json to_json(const BuildReport& report);

}  // namespace hvd::launcher::check
