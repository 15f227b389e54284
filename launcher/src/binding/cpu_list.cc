// SPDX-License-Identifier: Apache-2.0
#include "binding/cpu_list.h"

#include <algorithm>

#include "hvd/error.h"
#include "util/text.h"

namespace hvd::launcher::binding {
namespace {

// Far above any real CPU number (Linux caps NR_CPUS at 8192), low enough that a typo such as
// "0-4000000000" fails fast instead of allocating gigabytes.
constexpr int kMaxCpu = 65535;

using util::trim;

void sort_unique(std::vector<int>& cpus) {
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
}

}  // namespace

std::string format_cpu_list(const std::vector<int>& cpus) {
  std::vector<int> sorted = cpus;
  sort_unique(sorted);
  HVD_CHECK(sorted.empty() || sorted.front() >= 0, "negative CPU number ", sorted.front());
  std::string out;
  for (size_t i = 0; i < sorted.size();) {
    size_t j = i;
    while (j + 1 < sorted.size() && sorted[j + 1] == sorted[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(sorted[i]);
    if (j > i) out += str_cat('-', sorted[j]);
    i = j + 1;
  }
  return out;
}

std::vector<int> parse_cpu_list(std::string_view text) {
  const std::string_view body = trim(text);
  std::vector<int> cpus;
  if (body.empty()) return cpus;
  util::for_each_item(body, [&](std::string_view piece) {
    const auto [first, last] = util::parse_range(piece, kMaxCpu);
    if (first < 0) {
      throw ConfigError(str_cat("cpu list '", body, "': '", piece,
                                "' is not a CPU number or an ascending range N-M (0..", kMaxCpu,
                                ")"));
    }
    for (int cpu = first; cpu <= last; ++cpu) cpus.push_back(cpu);
  });
  sort_unique(cpus);
  return cpus;
}

}  // namespace hvd::launcher::binding
