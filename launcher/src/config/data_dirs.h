// SPDX-License-Identifier: Apache-2.0
#pragma once
// Where hvdrun's data files live: <prefix>/share/hvdrun, found relative to the executable so the
// build tree and an installed copy behave the same.

#include <string>

namespace hvd::launcher::config {

/// The folder holding configs/, templates/ and site-profiles/, derived from the path of the
/// running executable (/proc/self/exe). Empty when it cannot be found.
std::string data_dir();

/// data_dir() + "/configs/defaults.yaml"; empty when data_dir() is empty.
std::string defaults_file();

}  // namespace hvd::launcher::config
