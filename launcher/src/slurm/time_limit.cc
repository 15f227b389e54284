// SPDX-License-Identifier: Apache-2.0
#include "slurm/time_limit.h"

#include <cstdio>
#include <vector>

#include "hvd/error.h"

namespace hvd::launcher::slurm {
namespace {

[[noreturn]] void bad(std::string_view text) {
  throw UsageError(str_cat("time limit '", text,
                           "' is not a Slurm time (MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM or "
                           "D-HH:MM:SS)"));
}

long number(std::string_view part, std::string_view text) {
  if (part.empty() || part.size() > 7) bad(text);
  long v = 0;
  for (char c : part) {
    if (c < '0' || c > '9') bad(text);
    v = v * 10 + (c - '0');
  }
  return v;
}

std::vector<long> colon_fields(std::string_view s, std::string_view text) {
  std::vector<long> fields;
  size_t start = 0;
  for (size_t colon; (colon = s.find(':', start)) != std::string_view::npos; start = colon + 1) {
    fields.push_back(number(s.substr(start, colon - start), text));
  }
  fields.push_back(number(s.substr(start), text));
  if (fields.size() > 3) bad(text);
  return fields;
}

}  // namespace

long parse_time_limit(std::string_view text) {
  const size_t dash = text.find('-');
  if (dash == std::string_view::npos) {
    const std::vector<long> f = colon_fields(text, text);
    if (f.size() == 1) return f[0] * 60;               // minutes
    if (f.size() == 2) return f[0] * 60 + f[1];        // minutes:seconds
    return f[0] * 3600 + f[1] * 60 + f[2];             // hours:minutes:seconds
  }
  const long days = number(text.substr(0, dash), text);
  const std::vector<long> f = colon_fields(text.substr(dash + 1), text);
  long seconds = days * 86400 + f[0] * 3600;           // days-hours
  if (f.size() > 1) seconds += f[1] * 60;              // days-hours:minutes
  if (f.size() > 2) seconds += f[2];                   // days-hours:minutes:seconds
  return seconds;
}

std::string format_time_limit(long seconds) {
  const long days = seconds / 86400;
  const long h = seconds % 86400 / 3600, m = seconds % 3600 / 60, s = seconds % 60;
  char text[48];
  if (days > 0) {
    std::snprintf(text, sizeof(text), "%ld-%02ld:%02ld:%02ld", days, h, m, s);
  } else {
    std::snprintf(text, sizeof(text), "%02ld:%02ld:%02ld", h, m, s);
  }
  return text;
}

}  // namespace hvd::launcher::slurm
