// SPDX-License-Identifier: Apache-2.0
#include "exec/srun_report.h"

#include <charconv>
#include <csignal>
#include <cstring>
#include <regex>

#include "hvd/str_cat.h"

namespace hvd::launcher::exec {
namespace {

// "Segmentation fault (core dumped)" -> SIGSEGV, by srun's use of strsignal().
int signal_from_text(std::string text) {
  const auto core = text.find(" (core dumped)");
  if (core != std::string::npos) text.erase(core);
  for (int sig = 1; sig < NSIG; ++sig) {
    const char* name = strsignal(sig);
    if (name != nullptr && text == name) return sig;
  }
  return 0;
}

}  // namespace

std::optional<TaskFailure> SrunReport::parse(std::string_view line) {
  static const std::regex pattern(R"(^srun: error: (\S+): tasks? ([0-9,\-]+): (.+)$)");
  static const std::regex exited(R"(^Exited with exit code ([0-9]+)$)");
  std::cmatch m;
  if (!std::regex_match(line.begin(), line.end(), m, pattern)) return std::nullopt;
  TaskFailure f{m[1].str(), m[2].str(), 0, ""};
  const std::string what = m[3].str();
  std::smatch code;
  if (std::regex_match(what, code, exited)) {
    // A line that only looks like srun's (a rank's output that lost its label) may carry any
    // number: out of range is "not srun's message", never an exception.
    const std::string digits = code[1].str();
    const auto [end, ec] =
        std::from_chars(digits.data(), digits.data() + digits.size(), f.exit_code);
    if (ec != std::errc() || end != digits.data() + digits.size() || f.exit_code > 255) {
      return std::nullopt;
    }
    f.how = str_cat("exited with code ", f.exit_code);
  } else if (const int sig = signal_from_text(what)) {
    f.exit_code = 128 + sig;
    const char* abbrev = sigabbrev_np(sig);
    f.how = str_cat("was killed by SIG", abbrev != nullptr ? abbrev : "?", " (", what, ")");
  } else {
    return std::nullopt;
  }
  return f.exit_code == 0 ? std::nullopt : std::optional<TaskFailure>(f);
}

void SrunReport::observe(std::string_view line) {
  if (!first_) first_ = parse(line);
}

}  // namespace hvd::launcher::exec
