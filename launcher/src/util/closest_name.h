// SPDX-License-Identifier: Apache-2.0
#pragma once
// "Did you mean": the known name a mistyped one was probably meant to be (an option, a site
// profile, a command), so that an error line can say what to type instead.

#include <string>
#include <vector>

namespace hvd::launcher::util {

/// The name in `names` that `word` most likely misspells, or "" when none is close: at most two
/// edits away (one for short words), or the only name that starts with `word`. Leading dashes
/// do not count towards a word's length.
std::string closest_name(const std::string& word, const std::vector<std::string>& names);

}  // namespace hvd::launcher::util
