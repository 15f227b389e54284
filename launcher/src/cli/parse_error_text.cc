// SPDX-License-Identifier: Apache-2.0
#include "cli/parse_error_text.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <regex>
#include <sstream>

#include "cli/option_names.h"
#include "hvd/str_cat.h"
#include "util/closest_name.h"

namespace hvd::launcher::cli {
namespace {

// The subcommand the error is in: the deepest one parsed.
const CLI::App& deepest(const CLI::App& app) {
  const CLI::App* at = &app;
  while (!at->get_subcommands().empty()) at = at->get_subcommands().front();
  return *at;
}

std::string command_name(const CLI::App& app) {
  std::string name = "hvdrun";
  const CLI::App* at = &app;
  while (!at->get_subcommands().empty()) {
    at = at->get_subcommands().front();
    name += " " + at->get_name();
  }
  return name;
}

const CLI::Option* find_option(const CLI::App& app, const std::string& name) {
  if (const CLI::Option* o = app.get_option_no_throw(name)) return o;
  for (const CLI::App* group : app.get_subcommands({})) {
    if (!group->get_name().empty()) continue;
    if (const CLI::Option* o = find_option(*group, name)) return o;
  }
  return nullptr;
}

// "0.000001" and "1000000000.000000" as a person writes them.
std::string plain_number(const std::string& text) {
  if (text.find('.') == std::string::npos || text.find('e') != std::string::npos) return text;
  std::string t = text;
  while (t.back() == '0') t.pop_back();
  if (t.back() == '.') t.pop_back();
  return t;
}

std::string conversion_text(const std::string& name, const std::string& value, const CLI::App& in) {
  const CLI::Option* option = find_option(in, name);
  const std::string type = option != nullptr ? option->get_type_name() : "";
  if (type.rfind("INT", 0) == 0) {
    const bool digits =
        !value.empty() && value.find_first_not_of("-+0123456789") == std::string::npos;
    return str_cat(name, ": '", value, "' is ",
                   digits ? "too large for a whole number" : "not a whole number",
                   "; give one like 4");
  }
  if (type.rfind("FLOAT", 0) == 0) {
    return str_cat(name, ": '", value, "' is not a number; give one like 2.5");
  }
  return str_cat(name, ": '", value, "' is not a valid value");
}

std::string range_text(const std::string& name, const std::string& value, const std::string& low,
                       const std::string& high) {
  // CLI11's PositiveNumber prints its bound, the smallest double, as "0.000000": a refused
  // value equal to the printed bound means the bound itself is excluded.
  const double given = std::strtod(value.c_str(), nullptr);
  const bool excluded = given == std::strtod(low.c_str(), nullptr);
  errno = 0;
  const double top = std::strtod(high.c_str(), nullptr);
  if (errno == ERANGE || top > 1e300 || !std::isfinite(top)) {
    return str_cat(name, ": must be ", excluded ? "more than " : "at least ", plain_number(low),
                   ", got ", value);
  }
  return str_cat(name, ": must be from ", plain_number(low), " to ", plain_number(high), ", got ",
                 value);
}

}  // namespace

std::string parse_error_text(const CLI::ParseError& error, const CLI::App& app) {
  const std::string what = error.what();
  const std::string help = str_cat("; see ", command_name(app), " --help");
  const CLI::App& in = deepest(app);
  // An unknown option left over is the likely cause of whatever went wrong after it (a
  // required file "missing" because the typo took the rest of the line).
  const std::vector<std::string> left = in.remaining();
  if (!left.empty() && left.front().size() > 1 && left.front()[0] == '-' && left.front() != "--") {
    return unknown_option_message(left.front(), in, command_name(app));
  }
  std::smatch m;
  static const std::regex conversion("^Could not convert: (\\S+) = (.*)$");
  if (std::regex_match(what, m, conversion)) return conversion_text(m[1], m[2], in) + help;
  static const std::regex range("^(\\S+): Value (.*) not in range (\\S+) to (\\S+)$");
  if (std::regex_match(what, m, range)) return range_text(m[1], m[2], m[3], m[4]) + help;
  static const std::regex extra("^The following arguments? (?:was|were) not expected: (.*)$");
  if (std::regex_match(what, m, extra)) {
    // CLI11 lists them last first; an option among them is the likely typo.
    std::istringstream words(m[1].str());
    std::string word, first;
    while (words >> word) {
      if (first.empty()) first = word;
      if (word.size() > 1 && word[0] == '-') {
        return unknown_option_message(word, in, command_name(app));
      }
    }
    return str_cat("'", first, "' is not expected here", help);
  }
  if (what == "A subcommand is required" && !left.empty()) {
    std::vector<std::string> commands;
    for (const CLI::App* sub : in.get_subcommands({})) {
      if (!sub->get_name().empty()) commands.push_back(sub->get_name());
    }
    const std::string& word = left.front();
    const std::string guess = util::closest_name(word, commands);
    return str_cat("'", word, "' is not a command of ", command_name(app),
                   guess.empty() ? std::string() : str_cat(" (did you mean ", guess, "?)"), help);
  }
  return what + help;
}

}  // namespace hvd::launcher::cli
