// SPDX-License-Identifier: Apache-2.0
#include "files/owned_dir.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "hvd/error.h"
#include "hvd/str_cat.h"

namespace hvd::files {
namespace {

// Missing parents, then the folder itself. An existing one (made meanwhile, too) is fine: the
// checks in open_owned_dir decide whether it may be used.
void create_missing(const std::string& path) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  std::error_code ec;
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  if (ec) throw ConfigError(str_cat(path, ": cannot create its parent folder: ", ec.message()));
  if (mkdir(path.c_str(), 0755) != 0 && errno != EEXIST) {
    throw ConfigError(str_cat(path, ": cannot create the folder: ", std::strerror(errno)));
  }
}

}  // namespace

net::Fd open_owned_dir(const std::string& path) {
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0 && errno == ENOENT) create_missing(path);
  net::Fd fd(open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.valid()) {
    const int err = errno;
    if (lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
      throw ConfigError(str_cat(path,
                                ": is a symlink; hvdrun writes only into a folder of your "
                                "own: give the real folder, or a new name"));
    }
    throw ConfigError(str_cat(path, ": cannot open the folder: ", std::strerror(err)));
  }
  if (fstat(fd.get(), &st) != 0) {
    throw ConfigError(str_cat(path, ": cannot stat the folder: ", std::strerror(errno)));
  }
  if (st.st_uid != geteuid()) {
    throw ConfigError(str_cat(path, ": the folder belongs to uid ", st.st_uid, ", not to you (uid ",
                              geteuid(),
                              "): another user could replace what hvdrun writes there; give a "
                              "folder of your own, or a new name (hvdrun creates it)"));
  }
  return fd;
}

bool still_names(int dir_fd, const std::string& path) {
  struct stat opened {
  }, named{};
  return fstat(dir_fd, &opened) == 0 && lstat(path.c_str(), &named) == 0 &&
         opened.st_dev == named.st_dev && opened.st_ino == named.st_ino;
}

}  // namespace hvd::files
