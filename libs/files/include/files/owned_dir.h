// SPDX-License-Identifier: Apache-2.0
#pragma once
// An output folder that hvdrun writes into must be the user's own: a folder another user owns
// (a group folder, a /tmp/plots someone else made first) lets that user replace what hvdrun
// writes there, or swap a name hvdrun uses next. Errors are ConfigError, as in atomic_file.h.

#include <string>

#include "net/socket.h"

namespace hvd::files {

/// Opens `path` as a folder (O_DIRECTORY|O_NOFOLLOW: a symlink as its last component is refused)
/// and checks with fstat that it belongs to the effective uid. A missing folder is created
/// first (mode 0755 less the umask; missing parents too), so it is the user's own. Throws
/// ConfigError naming `path` and what to do when it is another user's, a symlink, not a folder,
/// or cannot be created or opened.
net::Fd open_owned_dir(const std::string& path);

/// Whether `path` still names the folder open at `dir_fd` (same device and inode); false when
/// it was renamed away or replaced since it was opened.
bool still_names(int dir_fd, const std::string& path);

}  // namespace hvd::files
