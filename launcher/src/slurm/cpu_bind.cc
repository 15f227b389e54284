// SPDX-License-Identifier: Apache-2.0
#include "slurm/cpu_bind.h"

#include <cctype>
#include <vector>

#include "binding/cpu_list.h"
#include "hvd/error.h"
#include "util/text.h"

namespace hvd::launcher::slurm {
namespace {

// The CPUs set in a hex mask ("0x00fe..." or "fe"), of any width: lowest bit is CPU 0.
std::vector<int> mask_bits(const std::string& mask, const std::string& value) {
  std::string hex = mask;
  if (hex.size() > 2 && hex[0] == '0' && (hex[1] == 'x' || hex[1] == 'X')) hex = hex.substr(2);
  if (hex.empty() || hex.size() > 1024) {
    throw ConfigError(str_cat("--cpu-bind=", value, ": '", mask, "' is not a hex CPU mask"));
  }
  std::vector<int> cpus;
  int bit = 0;
  for (auto it = hex.rbegin(); it != hex.rend(); ++it, bit += 4) {
    if (!std::isxdigit(static_cast<unsigned char>(*it))) {
      throw ConfigError(str_cat("--cpu-bind=", value, ": '", mask, "' is not a hex CPU mask"));
    }
    const int nibble = std::isdigit(static_cast<unsigned char>(*it))
                           ? *it - '0'
                           : std::tolower(static_cast<unsigned char>(*it)) - 'a' + 10;
    for (int b = 0; b < 4; ++b) {
      if (nibble & (1 << b)) cpus.push_back(bit + b);
    }
  }
  return cpus;
}

int map_number(const std::string& item, const std::string& value) {
  if (item.empty() || item.size() > 6 || item.find_first_not_of("0123456789") != std::string::npos) {
    throw ConfigError(str_cat("--cpu-bind=", value, ": '", item, "' is not a CPU or domain number"));
  }
  return std::stoi(item);
}

}  // namespace

std::string describe_cpu_bind(const std::string& value, int local_rank, int cpus_per_task) {
  // [verbose,]TYPE[:LIST]: the list after the colon holds the commas of its own.
  const size_t colon = value.find(':');
  std::string type = value.substr(0, colon);
  if (const size_t comma = type.rfind(','); comma != std::string::npos) type = type.substr(comma + 1);
  const std::string per_task =
      cpus_per_task > 0 ? str_cat(cpus_per_task, " CPUs") : std::string("CPUs");
  if (colon == std::string::npos) {
    if (type.empty() || type == "verbose") {
      return cpus_per_task > 0 ? str_cat(per_task, " (--cpus-per-task), placed by Slurm")
                               : std::string("not bound");
    }
    if (type == "none" || type == "no") return "not bound (--cpu-bind=none)";
    return str_cat(per_task, ", bound to ", type, " by Slurm at start");
  }
  std::vector<std::string> items;
  util::for_each_item(value.substr(colon + 1), [&items](std::string_view item) {
    items.emplace_back(item);
  });
  if (items.empty()) throw ConfigError(str_cat("--cpu-bind=", value, ": an empty list"));
  const std::string& mine = items[static_cast<size_t>(local_rank) % items.size()];
  if (type == "mask_cpu") return binding::format_cpu_list(mask_bits(mine, value));
  if (type == "map_cpu") return std::to_string(map_number(mine, value));
  if (type == "mask_ldom") {
    const std::vector<int> domains = mask_bits(mine, value);
    return str_cat("NUMA domain", domains.size() == 1 ? " " : "s ", binding::format_cpu_list(domains));
  }
  if (type == "map_ldom") return str_cat("NUMA domain ", map_number(mine, value));
  return str_cat("as --cpu-bind=", value, " gives task ", local_rank);
}

}  // namespace hvd::launcher::slurm
