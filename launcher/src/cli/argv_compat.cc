// SPDX-License-Identifier: Apache-2.0
#include "cli/argv_compat.h"

#include <map>

#include "cli/horovodrun_only.h"
#include "hvd/error.h"
#include "hvd/str_cat.h"

namespace hvd::launcher::cli {

const std::map<std::string, std::string>& horovodrun_aliases() {
  static const std::map<std::string, std::string> table = {
      {"-np", "--num-proc"}, {"-cb", "--check-build"}, {"-hostfile", "--hostfile"}};
  return table;
}

std::vector<std::string> normalize_horovodrun_args(const std::vector<std::string>& args,
                                                   const std::set<std::string>& takes_value,
                                                   const std::set<std::string>& subcommands,
                                                   std::vector<std::string>* notes) {
  std::vector<std::string> out = args;
  for (size_t i = 1; i < out.size(); ++i) {  // out[0] is the program name
    std::string& word = out[i];
    if (i == 1 && subcommands.count(word) > 0) continue;
    if (word == "--" || word.empty() || word[0] != '-' || word == "-") break;
    const auto eq = word.find('=');
    const std::string name = word.substr(0, eq);
    if (const HorovodrunOnlyOption* only = find_horovodrun_only(name)) {
      if (!only->no_effect) {
        throw UsageError(
            str_cat(name, " is a horovodrun option that hvdrun does not have: ", only->why));
      }
      if (notes != nullptr) notes->push_back(str_cat(name, " has no effect: ", only->why));
      const size_t values = eq == std::string::npos ? static_cast<size_t>(only->values) : 0;
      if (i + values >= out.size()) {
        throw UsageError(
            str_cat(name, " needs a value (and has no effect in hvdrun: ", only->why, ")"));
      }
      out.erase(out.begin() + static_cast<std::ptrdiff_t>(i),
                out.begin() + static_cast<std::ptrdiff_t>(i + 1 + values));
      --i;
      continue;
    }
    if (const auto alias = horovodrun_aliases().find(name); alias != horovodrun_aliases().end()) {
      word = alias->second + (eq == std::string::npos ? "" : word.substr(eq));
    }
    const std::string canonical = word.substr(0, word.find('='));
    if (eq == std::string::npos && takes_value.count(canonical) > 0) ++i;  // skip its value
  }
  return out;
}

}  // namespace hvd::launcher::cli
