// SPDX-License-Identifier: Apache-2.0
#include "cli/option_names.h"

#include <algorithm>

#include "cli/argv_compat.h"
#include "hvd/str_cat.h"
#include "util/closest_name.h"

namespace hvd::launcher::cli {
void for_each_option_spelling(
    const CLI::App& app,
    const std::function<void(const CLI::Option& option, const std::string& spelling)>& visit) {
  for (const CLI::Option* opt : app.get_options()) {
    if (opt->get_positional()) continue;
    for (const std::string& s : opt->get_snames()) visit(*opt, "-" + s);
    for (const std::string& l : opt->get_lnames()) visit(*opt, "--" + l);
  }
  for (const CLI::App* group : app.get_subcommands({})) {
    if (group->get_name().empty()) for_each_option_spelling(*group, visit);
  }
}

std::vector<std::string> option_names(const CLI::App& app) {
  std::vector<std::string> names;
  for_each_option_spelling(app, [&names](const CLI::Option&, const std::string& spelling) {
    names.push_back(spelling);
  });
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
