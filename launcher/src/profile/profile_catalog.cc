// SPDX-License-Identifier: Apache-2.0
#include "profile/profile_catalog.h"

#include <algorithm>
#include <filesystem>
#include <regex>
#include <sstream>

#include "config/data_dirs.h"
#include "config/host_spec.h"
#include "hvd/env_keys.h"
#include "hvd/error.h"
#include "profile/profile_loader.h"
#include "util/closest_name.h"

namespace hvd::launcher::profile {
namespace {

namespace fs = std::filesystem;

bool is_path(const std::string& name_or_path) {
  const std::string ext = ".yaml";
  return name_or_path.find('/') != std::string::npos ||
         (name_or_path.size() >= ext.size() &&
          name_or_path.compare(name_or_path.size() - ext.size(), ext.size(), ext) == 0);
}

std::vector<ProfileEntry> files_in(const std::string& dir) {
  std::vector<ProfileEntry> found;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return found;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const fs::path& p = entry.path();
    if (p.extension() == ".yaml" && entry.is_regular_file(ec)) {
      found.push_back({p.stem().string(), p.string(), "", "", ""});
    }
  }
  std::sort(found.begin(), found.end(),
            [](const ProfileEntry& a, const ProfileEntry& b) { return a.name < b.name; });
  return found;
}

// The entries that win their name, in search order.
std::vector<ProfileEntry> winners(const EnvMap& env) {
  std::vector<ProfileEntry> all = scan_profiles(profile_search_dirs(env));
  all.erase(std::remove_if(all.begin(), all.end(),
                           [](const ProfileEntry& e) { return !e.shadowed_by.empty(); }),
            all.end());
  return all;
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : ", ") + s;
  return out.empty() ? "none" : out;
}

SiteProfile load_entry(const ProfileEntry& e, const EnvMap& env) {
  if (e.path.empty()) return embedded_local_profile();
  return load_profile_file(e.path, make_resolver(e.path, env));
}

}  // namespace

std::vector<std::string> profile_search_dirs(const EnvMap& env) {
  std::vector<std::string> dirs;
  std::stringstream extra(env_string(env, env::kProfilePath, ""));
  for (std::string dir; std::getline(extra, dir, ':');) {
    if (!dir.empty()) dirs.push_back(dir);
  }
  const std::string home = env_string(env, "HOME", "");
  if (!home.empty()) dirs.push_back(home + "/.config/hvdrun");
  const std::string data = config::data_dir();
  if (!data.empty()) dirs.push_back(data + "/site-profiles");
  return dirs;
}

std::vector<ProfileEntry> scan_profiles(const std::vector<std::string>& dirs) {
  std::vector<ProfileEntry> all;
  for (const std::string& dir : dirs) {
    const std::vector<ProfileEntry> found = files_in(dir);
    all.insert(all.end(), found.begin(), found.end());
  }
  all.push_back({"local", "", "", "", ""});
  for (size_t i = 0; i < all.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (all[j].name == all[i].name && all[j].shadowed_by.empty()) {
        all[i].shadowed_by = all[j].path;
        break;
      }
    }
  }
  return all;
}

std::vector<ProfileEntry> list_profiles(const EnvMap& env) {
  std::vector<ProfileEntry> all = scan_profiles(profile_search_dirs(env));
  for (ProfileEntry& e : all) {
    // A listing reports every file's state: one broken profile must not hide the others.
    try {
      e.description = load_entry(e, env).description;
    } catch (const ConfigError& error) {
      e.error = error.what();
    }
  }
  return all;
}

ProfileResolver make_resolver(const std::string& profile_file, const EnvMap& env) {
  const std::string dir = fs::path(profile_file).parent_path().string();
  return [dir, env](const std::string& name) {
    std::error_code ec;
    std::string sibling = (dir.empty() ? std::string(".") : dir) + "/" + name + ".yaml";
    if (fs::is_regular_file(sibling, ec)) return sibling;
    for (const ProfileEntry& e : winners(env)) {
      if (e.name == name && !e.path.empty()) return e.path;
    }
    throw ConfigError(str_cat("no site profile named '", name,
                              "' next to the file or in the "
                              "search path (",
                              joined(profile_search_dirs(env)), ")"));
  };
}

std::string locate_profile(const std::string& name_or_path, const EnvMap& env) {
  if (is_path(name_or_path)) return name_or_path;
  const std::vector<ProfileEntry> found = winners(env);
  std::vector<std::string> names;
  for (const ProfileEntry& e : found) {
    if (e.name == name_or_path) return e.path;
    names.push_back(e.name);
  }
  std::sort(names.begin(), names.end());
  const std::string guess = util::closest_name(name_or_path, names);
  throw ConfigError(str_cat("unknown site profile '", name_or_path, "'",
                            guess.empty() ? "" : str_cat(" (did you mean ", guess, "?)"),
                            " (known: ", joined(names),
                            "; searched: ", joined(profile_search_dirs(env)), ")"));
}

SiteProfile find_profile(const std::string& name_or_path, const EnvMap& env) {
  const std::string path = locate_profile(name_or_path, env);
  if (path.empty()) return embedded_local_profile();
  return load_profile_file(path, make_resolver(path, env));
}

MergedProfile find_merged_profile(const std::string& name_or_path, const EnvMap& env) {
  const std::string path = locate_profile(name_or_path, env);
  if (path.empty()) return embedded_local_merged();
  return merge_profile_file(path, make_resolver(path, env));
}

std::optional<std::string> detect_profile(const EnvMap& env, const std::string& hostname) {
  std::vector<SiteProfile> profiles;
  for (const ProfileEntry& e : winners(env)) profiles.push_back(load_entry(e, env));
  const std::string cluster = env_string(env, "SLURM_CLUSTER_NAME", "");
  if (!cluster.empty()) {
    for (const SiteProfile& p : profiles) {
      const auto& names = p.cluster_names;
      if (std::find(names.begin(), names.end(), cluster) != names.end()) return p.name;
    }
  }
  for (const SiteProfile& p : profiles) {
    for (const std::string& pattern : p.hostname_patterns) {
      if (std::regex_match(hostname, std::regex(pattern))) return p.name;
    }
  }
  return std::nullopt;
}

SiteProfile resolve_profile(const std::string& requested, const EnvMap& env) {
  if (!requested.empty()) return find_profile(requested, env);
  const std::optional<std::string> detected = detect_profile(env, config::this_host_name());
  return detected ? find_profile(*detected, env) : embedded_local_profile();
}

}  // namespace hvd::launcher::profile
