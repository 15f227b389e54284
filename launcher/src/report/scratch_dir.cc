// SPDX-License-Identifier: Apache-2.0
#include "report/scratch_dir.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "hvd/error.h"
#include "hvd/str_cat.h"

namespace hvd::launcher::report {

std::string temp_parent(const EnvMap& env) {
  const auto tmpdir = env.find("TMPDIR");
  return tmpdir != env.end() && !tmpdir->second.empty() ? tmpdir->second : "/tmp";
}

ScratchDir::ScratchDir(const std::string& parent) {
  std::string pattern = parent + "/hvdrun-report-XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) {
    throw LaunchError(str_cat("cannot create a scratch folder in ", parent, ": ",
                              std::strerror(errno), "; set TMPDIR to a writable folder"));
  }
  path_ = pattern;
  fd_.reset(open(path_.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  struct stat st {};
  // In a TMPDIR without the sticky bit another user could put their own folder at the name
  // between mkdtemp and open: what was opened must be ours and private.
  if (!fd_.valid() || fstat(fd_.get(), &st) != 0 || st.st_uid != geteuid() ||
      (st.st_mode & 077) != 0) {
    throw LaunchError(str_cat(path_, ": the scratch folder was replaced before it was opened; ",
                              "set TMPDIR to a folder of your own"));
  }
}

ScratchDir::~ScratchDir() {
  if (!fd_.valid()) return;
  // Through the descriptor: only the files in the folder we made are removed.
  if (DIR* dir = fdopendir(dup(fd_.get()))) {
    std::vector<std::string> names;
    while (const dirent* e = readdir(dir)) {
      const std::string name = e->d_name;
      if (name != "." && name != "..") names.push_back(name);
    }
    closedir(dir);
    for (const std::string& name : names) unlinkat(fd_.get(), name.c_str(), 0);
  }
  rmdir(path_.c_str());  // fails harmlessly if the path names another folder now
}

void ScratchDir::write(const std::string& name, const std::string& content) const {
  net::Fd file(
      openat(fd_.get(), name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  size_t done = 0;
  while (file.valid() && done < content.size()) {
    const ssize_t n = ::write(file.get(), content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  if (!file.valid() || done < content.size()) {
    throw LaunchError(str_cat("cannot write ", path_, "/", name, ": ", std::strerror(errno)));
  }
}

}  // namespace hvd::launcher::report
