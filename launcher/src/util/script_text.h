// SPDX-License-Identifier: Apache-2.0
#pragma once
// Text that hvdrun writes into batch scripts. A value that holds a newline ends its `#SBATCH`
// line or its comment and starts a shell line of its own (bash -n accepts it, and sbatch stops
// reading directives at the first non-comment line), so every value from a flag or a profile
// is refused when it holds a control character; values that reach sbatch's own `#SBATCH`
// parser are quoted the way that parser reads them.

#include <string>
#include <string_view>

namespace hvd::launcher::util {

/// The offset of the first control character (below 0x20, or 0x7f) in `text`, or npos.
size_t find_control_char(std::string_view text);

/// "newline at offset 3" for the first control character of `text` (which must have one).
std::string describe_control_char(std::string_view text);

/// A name `module load` can take as one word: a letter or digit, then letters, digits and
/// _.+-/@:= (e.g. cray-mpich/8.1.27, PrgEnv-gnu, gcc@12.2.0), at most 200 characters.
bool is_module_name(std::string_view name);

/// One argument for an `#SBATCH` line. sbatch (src/sbatch/opt.c, _get_argument) splits the
/// line at whitespace, groups characters inside '...' or "..." (dropping the quotes), takes the
/// character after a backslash literally and ends the line at an unquoted '#'. Text made only
/// of letters, digits and _.,:=%/@+- is returned as it is; anything else is wrapped in double
/// quotes with '"' and '\' escaped. `text` must hold no control character.
std::string sbatch_quote(std::string_view text);

}  // namespace hvd::launcher::util
