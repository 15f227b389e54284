// SPDX-License-Identifier: Apache-2.0
#pragma once
// Slurm's time-limit formats (sbatch --time): "M", "M:S", "H:M:S", "D-H", "D-H:M", "D-H:M:S".

#include <string>
#include <string_view>

namespace hvd::launcher::slurm {

/// Seconds in a Slurm time limit. Throws UsageError quoting the text for anything else
/// (including "UNLIMITED", which a batch job may not ask for here).
long parse_time_limit(std::string_view text);

/// "D-HH:MM:SS" or "HH:MM:SS", the way Slurm prints limits.
std::string format_time_limit(long seconds);

}  // namespace hvd::launcher::slurm
