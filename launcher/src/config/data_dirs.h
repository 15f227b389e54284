// SPDX-License-Identifier: Apache-2.0
#pragma once
// Where hvdrun's data files live: <prefix>/share/hvdrun, found relative to the executable so the
// build tree and an installed copy behave the same.

#include <string>
#include <vector>

namespace hvd::launcher::config {

/// The folder holding configs/, templates/ and site-profiles/, derived from the path of the
/// running executable (/proc/self/exe). Empty when it cannot be found.
std::string data_dir();

/// data_dir() + "/configs/defaults.yaml"; empty when data_dir() is empty.
std::string defaults_file();

/// The folders the ranks' PYTHONPATH gets in front of the user's entries:
/// <prefix>/lib/hvdrun/why (a sitecustomize that installs the Python stack dump of `hvdrun why`),
/// <prefix>/lib/hvdrun/python (the hvdrun package, hvdrun.torch) and, when `horovod_compat`,
/// <prefix>/lib/hvdrun/horovod-compat (a `horovod` package re-exporting it). Only folders that
/// exist: a build without the PyTorch extension adds only the first.
std::vector<std::string> python_dirs(bool horovod_compat);

/// `dirs` joined with ':' in front of `current` (the user's PYTHONPATH, kept whole); a dir
/// already among the user's entries is not repeated.
std::string prepend_python_path(const std::vector<std::string>& dirs, const std::string& current);

}  // namespace hvd::launcher::config
