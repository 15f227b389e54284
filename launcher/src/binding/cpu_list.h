// SPDX-License-Identifier: Apache-2.0
#pragma once
// CPU lists in the Linux "cpulist" text form ("0-3,8,10-11"), as in /sys/devices/system/cpu/online,
// taskset -c and the launch plan. A tiny pure library so the plan and its tests can speak one form.

#include <string>
#include <string_view>
#include <vector>

namespace hvd::launcher::binding {

/// Formats CPU numbers compactly: sorted, duplicates dropped, runs of 2+ as "a-b"
/// ({3,0,1,2,8,10,11} -> "0-3,8,10-11"). An empty list gives "". Negative numbers are a caller
/// bug (HVD_CHECK).
std::string format_cpu_list(const std::vector<int>& cpus);

/// Parses what format_cpu_list() writes and the kernel's forms: comma-separated "N" or "N-M"
/// (N <= M); surrounding whitespace, such as sysfs's trailing newline, is ignored. Blank text
/// gives an empty list. Returns the CPUs sorted and deduplicated.
/// Throws ConfigError naming the text and the bad piece ("cpu list '0-x': '0-x' is not ...").
std::vector<int> parse_cpu_list(std::string_view text);

}  // namespace hvd::launcher::binding
