// SPDX-License-Identifier: Apache-2.0
#pragma once
// horovodrun spells some options with one dash and several letters (-np, -cb, -hostfile), which
// CLI11 reads as bundles of short flags. These are rewritten to their long forms before parsing,
// but only in hvdrun's own part of the command line: nothing from the program onwards changes.

#include <map>
#include <set>
#include <string>
#include <vector>

namespace hvd::launcher::cli {

/// horovodrun's single-dash spellings and the long options they stand for.
const std::map<std::string, std::string>& horovodrun_aliases();

/// Rewrites -np, -cb and -hostfile (also as -np=4) to --num-proc, --check-build and --hostfile.
/// horovodrun's options that hvdrun lacks (cli/horovodrun_only.h) are dropped, with their
/// values, when they change nothing here (a note for each goes to `notes` if given), and throw
/// UsageError saying what to do instead otherwise.
/// Scanning stops at "--" or at the first word that is neither an option nor the value of one;
/// `takes_value` names the options (all spellings) that consume the next word. A first word
/// in `subcommands` (e.g. "preflight", which takes -np too) does not stop the scan.
std::vector<std::string> normalize_horovodrun_args(const std::vector<std::string>& args,
                                                   const std::set<std::string>& takes_value,
                                                   const std::set<std::string>& subcommands = {},
                                                   std::vector<std::string>* notes = nullptr);

}  // namespace hvd::launcher::cli
