// SPDX-License-Identifier: Apache-2.0
#include "cli/output_file.h"

#include "hvd/error.h"

namespace hvd::launcher::cli {

OutputFile::OutputFile(const std::string& path, mode_t mode) {
  if (path.empty()) return;
  try {
    file_.emplace(path, mode);
  } catch (const ConfigError& e) {  // hvd::files' class for it; for a tool it is its output
    throw LaunchError(e.what());
  }
}

void OutputFile::write_all(std::string_view text) {
  if (!file_) return;
  try {
    file_->write(text);
    file_->commit();
  } catch (const ConfigError& e) {
    throw LaunchError(e.what());
  }
}

}  // namespace hvd::launcher::cli
