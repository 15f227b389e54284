// SPDX-License-Identifier: Apache-2.0
#include "profile/profile_merge.h"

#include <algorithm>
#include <filesystem>
#include <iterator>
#include <set>
#include <system_error>
#include <vector>

#include "config/yaml_file.h"
#include "hvd/error.h"

namespace hvd::launcher::profile {
namespace {

using config::where;

// Keys are plain names, each once: yaml-cpp keeps both entries of a repeated key and lookups
// see only the first, so a repeat would be silently ignored.
void check_map_keys(const std::string& file, const YAML::Node& map, const std::string& prefix) {
  std::set<std::string> seen;
  for (const auto& kv : map) {
    if (!kv.first.IsScalar()) {
      throw ConfigError(str_cat(where(file, kv.first), ": ", prefix.empty() ? "the file" : prefix,
                                ": a key must be a plain name, not ", describe(kv.first)));
    }
    if (seen.insert(kv.first.Scalar()).second) continue;
    throw ConfigError(str_cat(where(file, kv.first), ": ", join_key(prefix, kv.first.Scalar()),
                              ": given twice in the same mapping"));
  }
}

// Records `file` as the writer of every key and list item under `value`, a value new to the
// merge.
void record_all(const YAML::Node& value, const std::string& prefix, const std::string& file,
                ProfileOrigins& origins) {
  if (value.IsSequence()) {
    for (size_t i = 0; i < value.size(); ++i) {
      const std::string path = str_cat(prefix, "[", i, "]");
      origins.record(path, file, value[i]);
      record_all(value[i], path, file, origins);
    }
  }
  if (!value.IsMap()) return;
  check_map_keys(file, value, prefix);
  for (const auto& kv : value) {
    const std::string path = join_key(prefix, kv.first.Scalar());
    origins.record(path, file, kv.first);
    record_all(kv.second, path, file, origins);
  }
}

// Lays `over` (written in `file`) onto `base`: maps merge key by key, anything else replaces.
// The nodes are shared, not copied, so every value keeps the line and column it was written at.
void merge_into(YAML::Node base, const YAML::Node& over, const std::string& prefix,
                const std::string& file, ProfileOrigins& origins) {
  check_map_keys(file, over, prefix);
  for (const auto& kv : over) {
    const std::string key = kv.first.Scalar();
    if (prefix.empty() && key == "extends") continue;
    const std::string path = join_key(prefix, key);
    origins.record(path, file, kv.first);
    const YAML::Node& lookup = base;  // const: operator[] must not insert
    YAML::Node old = lookup[key];
    if (old.IsDefined() && old.IsMap() && kv.second.IsMap()) {
      merge_into(old, kv.second, path, file, origins);
      continue;
    }
    origins.forget_below(path);
    record_all(kv.second, path, file, origins);
    if (old.IsDefined()) {
      base[key] = kv.second;
    } else {
      base.force_insert(kv.first, kv.second);
    }
  }
}

// Each file of a chain names itself: `name` must be its file stem, so `extends: lumi` and
// `--profile lumi` always mean the same file.
void check_header(const std::string& file, const YAML::Node& root) {
  if (!root.IsMap()) {
    throw ConfigError(str_cat(where(file, root),
                              ": a site profile must be a mapping of keys "
                              "to values (see site-profiles/README.md)"));
  }
  const std::string stem = std::filesystem::path(file).stem().string();
  const YAML::Node name = root["name"];
  if (!name) {
    throw ConfigError(str_cat(where(file, root),
                              ": name: required, and it must be the file "
                              "name without .yaml ('",
                              stem, "')"));
  }
  const std::string text = config::as_string(file, name, "name");
  if (text != stem) {
    throw ConfigError(str_cat(where(file, name), ": name: '", text,
                              "' does not match the file name; it must be '", stem, "'"));
  }
  if (const YAML::Node ext = root["extends"]) config::as_string(file, ext, "extends");
}

struct ChainLink {
  std::string id;    // canonical path, to spot cycles
  std::string file;  // as found, for messages
};

std::string file_id(const std::string& file) {
  std::error_code ec;
  const std::filesystem::path canonical = std::filesystem::weakly_canonical(file, ec);
  return ec ? file : canonical.string();
}

std::string resolve_parent(const ProfileResolver& resolve, const std::string& file,
                           const YAML::Node& ext) {
  try {
    return resolve(ext.Scalar());
  } catch (const ConfigError& e) {
    // Add where the name was written; the resolver only knows the name.
    throw ConfigError(str_cat(where(file, ext), ": extends: ", e.what()));
  }
}

MergedProfile merge_chain(const std::string& file, const YAML::Node& root,
                          const ProfileResolver& resolve, std::vector<ChainLink>& chain);

// The merged parent named by `ext` (the `extends:` value written in `file`).
MergedProfile merge_parent(const std::string& file, const YAML::Node& ext,
                           const ProfileResolver& resolve, std::vector<ChainLink>& chain) {
  const std::string parent = resolve_parent(resolve, file, ext);
  const std::string id = file_id(parent);
  const auto seen = [&](const ChainLink& l) { return l.id == id; };
  if (std::any_of(chain.begin(), chain.end(), seen)) {
    std::string cycle;
    for (const ChainLink& l : chain) cycle += l.file + " -> ";
    throw ConfigError(str_cat(where(file, ext), ": extends: '", ext.Scalar(),
                              "' makes a cycle: ", cycle, parent));
  }
  chain.push_back({id, parent});
  return merge_chain(parent, config::load_yaml_file(parent), resolve, chain);
}

// yaml-cpp's Node::operator= on a live node rebinds the node itself (every handle to it, in
// every document, sees the new value), so handles here are only ever copy-constructed, and
// base[key] = value in merge_into is the one deliberate rebinding.
MergedProfile merge_chain(const std::string& file, const YAML::Node& root,
                          const ProfileResolver& resolve, std::vector<ChainLink>& chain) {
  check_header(file, root);
  const YAML::Node ext = root["extends"];
  MergedProfile merged =
      ext ? merge_parent(file, ext, resolve, chain) : MergedProfile{root, {}, {}};
  if (ext) {
    merge_into(merged.root, root, "", file, merged.origins);
  } else {
    record_all(root, "", file, merged.origins);
  }
  merged.origins.record("", file, root);
  merged.sources.push_back(file);
  return merged;
}

}  // namespace

std::string join_key(const std::string& prefix, const std::string& key) {
  return prefix.empty() ? key : prefix + "." + key;
}

std::string describe(const YAML::Node& n) {
  if (n.IsScalar()) return "'" + n.Scalar() + "'";
  return n.IsMap() ? "a mapping" : n.IsSequence() ? "a list" : "nothing";
}

void ProfileOrigins::record(const std::string& path, const std::string& file,
                            const YAML::Node& key) {
  by_path_.erase(path);  // not assignment: see merge_chain
  by_path_.emplace(path, Origin{file, key});
}

void ProfileOrigins::forget_below(const std::string& path) {
  for (auto it = by_path_.lower_bound(path); it != by_path_.end();) {
    const std::string& p = it->first;
    if (p.compare(0, path.size(), path) != 0) break;
    const bool below = p.size() > path.size() && (p[path.size()] == '.' || p[path.size()] == '[');
    it = below ? by_path_.erase(it) : std::next(it);
  }
}

const ProfileOrigins::Origin& ProfileOrigins::find(const std::string& path) const {
  std::string p = path;
  for (;;) {
    const auto it = by_path_.find(p);
    if (it != by_path_.end()) return it->second;
    HVD_CHECK(!p.empty(), "no origin recorded for the profile's root");
    const auto cut = p.find_last_of(".[");
    p = cut == std::string::npos ? std::string() : p.substr(0, cut);
  }
}

const std::string& ProfileOrigins::file_of(const std::string& path) const {
  return find(path).file;
}

std::string ProfileOrigins::where_key(const std::string& path) const {
  const Origin& o = find(path);
  return where(o.file, o.key);
}

MergedProfile merge_profile(const std::string& file, const YAML::Node& root,
                            const ProfileResolver& resolve) {
  std::vector<ChainLink> chain{{file_id(file), file}};
  return merge_chain(file, root, resolve, chain);
}

}  // namespace hvd::launcher::profile
