// SPDX-License-Identifier: Apache-2.0
#pragma once
// The horovodrun command: bin/horovodrun is a symbolic link to hvdrun, which, started under
// that name, behaves as `hvdrun --horovod-compat`, so that sites' `horovodrun -np 4 -H
// localhost:4 python train.py` lines run unchanged, and --check-build prints Horovod's text.

#include <string>

namespace hvd::launcher::cli {

/// True when `argv0`'s last path component is "horovodrun".
bool started_as_horovodrun(const std::string& argv0);

}  // namespace hvd::launcher::cli
