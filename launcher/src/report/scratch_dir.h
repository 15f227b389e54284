// SPDX-License-Identifier: Apache-2.0
#pragma once
// A private scratch folder for one external tool run: mkdtemp under the temporary folder
// ($TMPDIR or /tmp, never the output folder, which another user may be able to write), mode
// 0700, used only through a descriptor opened once, so a rename of its path cannot swap it.

#include <string>

#include "config/env_map.h"
#include "net/socket.h"

namespace hvd::launcher::report {

/// $TMPDIR from `env` when set and not empty, else /tmp.
std::string temp_parent(const EnvMap& env);

class ScratchDir {
 public:
  /// Makes `parent`/hvdrun-report-XXXXXX and opens it; checks that what was opened is ours and
  /// private. Throws LaunchError naming `parent`.
  explicit ScratchDir(const std::string& parent);
  /// Removes the files in it (through the descriptor) and the folder.
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  int fd() const { return fd_.get(); }
  const std::string& path() const { return path_; }
  /// Creates `name` (O_EXCL|O_NOFOLLOW, mode 0600) in the folder with `content`. Throws
  /// LaunchError.
  void write(const std::string& name, const std::string& content) const;

 private:
  std::string path_;
  net::Fd fd_;
};

}  // namespace hvd::launcher::report
