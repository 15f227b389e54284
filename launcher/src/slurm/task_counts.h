// SPDX-License-Identifier: Apache-2.0
#pragma once
// Slurm's run-length lists of per-node counts: SLURM_TASKS_PER_NODE, SLURM_STEP_TASKS_PER_NODE
// and SLURM_JOB_CPUS_PER_NODE ("2(x3),1" = 2,2,2,1), one entry per node in nodelist order.

#include <string>
#include <string_view>
#include <vector>

namespace hvd::launcher::slurm {

/// Expands "c(x#)" entries into # copies of c: "2(x3),1" -> {2, 2, 2, 1}, "4" -> {4},
/// "72(x2),36" -> {72, 72, 36}. Entries are comma-separated; c >= 0 and # >= 1 are decimal.
/// Surrounding whitespace is ignored and blank text gives an empty list.
/// Throws SchedulerError quoting the text and the bad entry when an entry is malformed
/// ("2(x)", "(x2)", "-1", "2(x0)", "1,,2") or the list grows past 65536 entries.
std::vector<int> expand_task_counts(std::string_view text);

/// The inverse of expand_task_counts(): runs of equal counts become "c(x#)",
/// {2, 2, 2, 1} -> "2(x3),1"; an empty list gives "". A negative count is a caller bug
/// (HVD_CHECK).
std::string compress_task_counts(const std::vector<int>& counts);

}  // namespace hvd::launcher::slurm
