// SPDX-License-Identifier: Apache-2.0
#include "cli/option_names.h"

#include <algorithm>

#include "cli/argv_compat.h"
#include "hvd/str_cat.h"
#include "util/closest_name.h"

namespace hvd::launcher::cli {
namespace {

void collect(const CLI::App& app, std::vector<std::string>& names) {
  for (const CLI::Option* opt : app.get_options()) {
    if (opt->get_positional()) continue;
    for (const std::string& s : opt->get_snames()) names.push_back("-" + s);
    for (const std::string& l : opt->get_lnames()) names.push_back("--" + l);
  }
  // Option groups are nameless subcommands whose options get_options() leaves out.
  for (const CLI::App* group : app.get_subcommands({})) {
    if (group->get_name().empty()) collect(*group, names);
  }
}

}  // namespace

std::vector<std::string> option_names(const CLI::App& app) {
  std::vector<std::string> names;
  collect(app, names);
  // horovodrun's spellings too, so that --np gets "did you mean -np?".
  for (const auto& [alias, option] : horovodrun_aliases()) {
    if (std::find(names.begin(), names.end(), option) != names.end()) names.push_back(alias);
  }
  return names;
}

std::string unknown_option_message(const std::string& word, const CLI::App& app,
                                   const std::string& command_name) {
  const std::string option = word.substr(0, word.find('='));
  const std::string guess = util::closest_name(option, option_names(app));
  return str_cat("unknown option '", option, "'",
                 guess.empty() ? std::string() : str_cat(" (did you mean ", guess, "?)"), "; see ",
                 command_name, " --help");
}

}  // namespace hvd::launcher::cli
