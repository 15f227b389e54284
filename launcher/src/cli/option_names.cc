// SPDX-License-Identifier: Apache-2.0
#include "cli/option_names.h"

#include <algorithm>

#include "hvd/str_cat.h"

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

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

std::vector<std::string> option_names(const CLI::App& app) {
  std::vector<std::string> names;
  collect(app, names);
  return names;
}

std::string closest_name(const std::string& word, const std::vector<std::string>& names) {
  // A two-letter word is one edit from too many names to mean any of them.
  const size_t stem = word.size() - std::min(word.size(), word.find_first_not_of('-'));
  if (stem < 2) return "";
  const size_t allowed = stem <= 4 ? 1 : 2;
  std::string best;
  size_t best_distance = allowed + 1;
  std::vector<std::string> extensions;
  for (const std::string& name : names) {
    const size_t d = edit_distance(word, name);
    if (d < best_distance) {
      best = name;
      best_distance = d;
    }
    if (name.size() > word.size() && name.compare(0, word.size(), word) == 0) {
      extensions.push_back(name);
    }
  }
  if (!best.empty()) return best;
  return extensions.size() == 1 && stem >= 3 ? extensions.front() : "";
}

std::string unknown_option_message(const std::string& word, const CLI::App& app,
                                   const std::string& command_name) {
  const std::string option = word.substr(0, word.find('='));
  const std::string guess = closest_name(option, option_names(app));
  return str_cat("unknown option '", option, "'",
                 guess.empty() ? std::string() : str_cat(" (did you mean ", guess, "?)"), "; see ",
                 command_name, " --help");
}

}  // namespace hvd::launcher::cli
