// SPDX-License-Identifier: Apache-2.0
#include "cli/profiles_cmd.h"

#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "profile/profile_catalog.h"

namespace hvd::launcher::cli {
namespace {

namespace profile = hvd::launcher::profile;

void print_list(const EnvMap& env, std::ostream& out) {
  const std::vector<profile::ProfileEntry> entries = profile::list_profiles(env);
  size_t width = 4;
  for (const auto& e : entries) width = std::max(width, e.name.size());
  for (const auto& e : entries) {
    out << e.name << std::string(width + 2 - e.name.size(), ' ')
        << (e.path.empty() ? "(embedded)" : e.path) << "\n"
        << std::string(width + 2, ' ');
    if (!e.shadowed_by.empty()) {
      out << "[shadowed by " << e.shadowed_by << "] ";
    }
    out << (e.error.empty() ? e.description : "INVALID: " + e.error) << "\n";
  }
}

void print_show(const std::string& name, const EnvMap& env, std::ostream& out) {
  const profile::MergedProfile merged = profile::find_merged_profile(name, env);
  out << "# site profile '" << name << "', merged from (later files win):\n";
  for (const std::string& file : merged.sources) out << "#   " << file << "\n";
  YAML::Emitter emitter;
  emitter << merged.root;
  out << emitter.c_str() << "\n";
}

void validate(const std::vector<std::string>& files, const EnvMap& env, std::ostream& out) {
  for (const std::string& file : files) {
    profile::load_profile_file(file, profile::make_resolver(file, env));
    out << file << ": ok\n";
  }
}

}  // namespace

CLI::App* register_profiles_command(CLI::App& app) {
  CLI::App* profiles = app.add_subcommand("profiles", "List, show and check site profiles");
  profiles->require_subcommand(1);
  profiles->add_subcommand("list", "The profiles in the search path, in search order");
  CLI::App* show = profiles->add_subcommand("show", "A profile merged through extends:, as YAML");
  show->add_option("name", "Profile name, or a path to a .yaml file")->required();
  CLI::App* check =
      profiles->add_subcommand("validate", "Check profile files; exit 3 if one fails");
  check->add_option("files", "Profile files")->required()->expected(1, -1)->allow_extra_args();
  return profiles;
}

int run_profiles_command(const CLI::App& profiles_subcommand, const EnvMap& env,
                         std::ostream& out) {
  const CLI::App* show = profiles_subcommand.get_subcommand("show");
  const CLI::App* check = profiles_subcommand.get_subcommand("validate");
  if (*show) {
    print_show(show->get_option("name")->as<std::string>(), env, out);
  } else if (*check) {
    validate(check->get_option("files")->as<std::vector<std::string>>(), env, out);
  } else {
    print_list(env, out);
  }
  return 0;
}

int run_profiles_command(const CLI::App& profiles_subcommand, const EnvMap& env) {
  const int code = run_profiles_command(profiles_subcommand, env, std::cout);
  std::cout << std::flush;
  return code;
}

}  // namespace hvd::launcher::cli
