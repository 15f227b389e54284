// SPDX-License-Identifier: Apache-2.0
#pragma once
// The file a tool writes (sbatch -o, predict --json, preflight --json). Opened before the work,
// so that a path that cannot be written fails first instead of after the table was printed or
// the preflight ran; written atomically (hvd::files), so a failure leaves no partial file; and
// any failure is exit 5, as the tools' help says: "its output could not be written".

#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>

#include "files/atomic_file.h"

namespace hvd::launcher::cli {

class OutputFile {
 public:
  /// No file for an empty `path`. Throws LaunchError when `path` cannot be created.
  explicit OutputFile(const std::string& path, mode_t mode = 0644);

  /// Writes all of `text` and renames it into place (nothing for no file). Throws LaunchError.
  void write_all(std::string_view text);

 private:
  std::optional<files::AtomicFile> file_;
};

}  // namespace hvd::launcher::cli
