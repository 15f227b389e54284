// SPDX-License-Identifier: Apache-2.0
#include "why/job_dir.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "files/atomic_file.h"
#include "files/owned_file.h"
#include "hvd/error.h"
#include "net/socket.h"

namespace hvd::launcher::why {
namespace {

constexpr const char* kJobFile = "job.json";
constexpr size_t kMaxJobFile = 64 << 10;

void require_private_folder(const std::string& path) {
  net::Fd fd(open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  struct stat st {};
  if (!fd.valid() || fstat(fd.get(), &st) != 0) {
    throw ConfigError(str_cat(path, ": cannot open the folder of running hvdrun jobs (",
                              std::strerror(errno), "); remove it if it is a symlink or a file"));
  }
  if (st.st_uid != geteuid() || (st.st_mode & 077) != 0) {
    char mode[8];
    std::snprintf(mode, sizeof(mode), "%03o", static_cast<unsigned>(st.st_mode & 0777));
    throw ConfigError(str_cat(path, " is not a private folder of yours (owner ", st.st_uid,
                              ", mode ", mode,
                              "): hvdrun why keeps its job folders there; remove it or set "
                              "XDG_RUNTIME_DIR to a folder of yours"));
  }
}

}  // namespace

std::string process_start_ticks(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(stat, text)) return {};
  const size_t close = text.rfind(')');
  if (close == std::string::npos) return {};
  std::istringstream fields(text.substr(close + 2));
  std::string field;
  for (int i = 3; i <= 22 && fields >> field; ++i) {
    if (i == 22) return field;
  }
  return {};
}

void remove_private_folder(const std::string& path) noexcept {
  // Only names hvdrun and the ranks made; the folder is 0700, so no one else added any.
  if (DIR* d = opendir(path.c_str())) {
    while (const dirent* e = readdir(d)) {
      const std::string name = e->d_name;
      if (name != "." && name != "..") unlinkat(dirfd(d), name.c_str(), 0);
    }
    closedir(d);
  }
  rmdir(path.c_str());
}

std::string jobs_folder() {
  const char* runtime_dir = std::getenv("XDG_RUNTIME_DIR");
  std::string path;
  struct stat st {};
  if (runtime_dir != nullptr && runtime_dir[0] == '/' && stat(runtime_dir, &st) == 0 &&
      st.st_uid == geteuid()) {
    path = std::string(runtime_dir) + "/hvdrun";
  } else {
    path = str_cat("/tmp/hvdrun-", geteuid());
  }
  if (mkdir(path.c_str(), 0700) != 0 && errno != EEXIST) {
    throw ConfigError(str_cat(path, ": cannot create the folder of running hvdrun jobs: ",
                              std::strerror(errno)));
  }
  require_private_folder(path);
  return path;
}

JobDir JobDir::create(const std::vector<std::string>& command) {
  std::string pattern = str_cat(jobs_folder(), "/job-", getpid(), "-XXXXXX");
  if (mkdtemp(pattern.data()) == nullptr) {
    throw ConfigError(str_cat(pattern, ": cannot create the job's folder: ", std::strerror(errno)));
  }
  JobDir dir(pattern);
  std::string text;
  for (const std::string& word : command) text += (text.empty() ? "" : " ") + word;
  const nlohmann::json job{{"pid", getpid()}, {"start", process_start_ticks(getpid())}, {"command", text}};
  files::write_file_atomically(dir.path_ + "/" + kJobFile,
                               job.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
                               0600);
  return dir;
}

JobDir::JobDir(JobDir&& other) noexcept : path_(std::move(other.path_)) { other.path_.clear(); }

JobDir::~JobDir() {
  if (!path_.empty()) remove_private_folder(path_);
}

void JobDir::write_verdict(const std::string& json) const {
  files::write_file_atomically(path_ + "/" + kVerdictFile, json, 0600);
}

std::vector<RunningJob> running_jobs() {
  const std::string base = jobs_folder();
  std::vector<RunningJob> jobs;
  DIR* d = opendir(base.c_str());
  if (d == nullptr) return jobs;
  while (const dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name.rfind("job-", 0) != 0) continue;
    try {
      const nlohmann::json job = nlohmann::json::parse(
          files::read_owned_file(base + "/" + name + "/" + kJobFile, kMaxJobFile));
      const pid_t pid = job.at("pid").get<pid_t>();
      if (pid <= 0 || process_start_ticks(pid) != job.at("start").get<std::string>()) {
        remove_private_folder(base + "/" + name);  // its hvdrun is gone
        continue;
      }
      jobs.push_back({base + "/" + name, pid, job.at("command").get<std::string>()});
    } catch (const std::exception&) {
      continue;  // a folder being made or removed, or left by a killed hvdrun
    }
  }
  closedir(d);
  return jobs;
}

}  // namespace hvd::launcher::why
