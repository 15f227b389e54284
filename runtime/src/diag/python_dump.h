// SPDX-License-Identifier: Apache-2.0
#pragma once
// The Python stack dump of one rank: faulthandler writes it on the why signal into
// HVD_WHY_DIR/py.<rank> (python/why/hvdrun_stack_dump.py), a file opened O_APPEND in a folder
// of the user's own. Whoever reads a dump empties it, so that the next question never gets a
// stale answer (a stopped rank leaves the file empty).

#include <string>

namespace hvd::diag {

/// The dump's text (at most 256 KiB) and the file emptied; "" when `why_dir` is empty, or the
/// file is missing, or is not a regular file of this user (never followed through a symlink).
std::string take_python_dump(const std::string& why_dir, int rank);

}  // namespace hvd::diag
