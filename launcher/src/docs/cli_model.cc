// SPDX-License-Identifier: Apache-2.0
#include "docs/cli_model.h"

#include <algorithm>

namespace hvd::launcher::docs {
namespace {

OptionDoc describe_option(const CLI::Option& opt) {
  OptionDoc doc;
  doc.positional = opt.get_positional();
  if (doc.positional) {
    doc.names.push_back(opt.get_name());
  } else {
    for (const std::string& s : opt.get_snames()) doc.names.push_back("-" + s);
    for (const std::string& l : opt.get_lnames()) doc.names.push_back("--" + l);
  }
  // A flag has a type size too; it is its expected count of 0 that says it takes no value.
  if (opt.get_items_expected_max() > 0) doc.value = opt.get_type_name();
  doc.help = opt.get_description();
  return doc;
}

OptionGroupDoc& group_named(std::vector<OptionGroupDoc>& groups, const std::string& title) {
  auto it = std::find_if(groups.begin(), groups.end(),
                         [&](const OptionGroupDoc& g) { return g.title == title; });
  if (it != groups.end()) return *it;
  groups.push_back({title, {}});
  return groups.back();
}

void add_options(const CLI::App& app, const std::string& title, std::vector<OptionGroupDoc>& out) {
  for (const CLI::Option* opt : app.get_options()) {
    // An option group carries a copy of its parent's --help; the parent's is documented.
    if (!title.empty() && opt == app.get_help_ptr()) continue;
    // An option group's own title, else the option's (CLI11's "Options" by default).
    const std::string group = title.empty() ? opt->get_group() : title;
    if (group.empty()) continue;  // CLI11's way of hiding an option
    group_named(out, group).options.push_back(describe_option(*opt));
  }
  for (const CLI::App* sub : app.get_subcommands({})) {
    if (sub->get_name().empty()) add_options(*sub, sub->get_group(), out);
  }
}

CommandDoc describe_at(const CLI::App& app, std::vector<std::string> path) {
  CommandDoc doc;
  doc.path = path;
  doc.description = app.get_description();
  doc.footer = app.get_footer();
  add_options(app, "", doc.groups);
  for (const CLI::App* sub : app.get_subcommands({})) {
    if (sub->get_name().empty()) continue;  // an option group, walked above
    std::vector<std::string> sub_path = path;
    sub_path.push_back(sub->get_name());
    doc.subcommands.push_back(describe_at(*sub, sub_path));
  }
  return doc;
}

}  // namespace

CommandDoc describe(const CLI::App& app) { return describe_at(app, {}); }

std::vector<std::string> option_names(const CommandDoc& cmd) {
  std::vector<std::string> names;
  for (const OptionGroupDoc& g : cmd.groups) {
    for (const OptionDoc& o : g.options) {
      if (!o.positional) names.insert(names.end(), o.names.begin(), o.names.end());
    }
  }
  return names;
}

}  // namespace hvd::launcher::docs
