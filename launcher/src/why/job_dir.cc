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
  const nlohmann::json job{
      {"pid", getpid()}, {"start", process_start_ticks(getpid())}, {"command", text}};
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

void for_each_recorded_folder(
    const std::string& prefix, const std::string& record_file, size_t max_bytes,
    const std::function<void(const std::string&, const nlohmann::json&, bool)>& visit) {
  const std::string base = jobs_folder();
  DIR* d = opendir(base.c_str());
  if (d == nullptr) return;
  while (const dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name.rfind(prefix, 0) != 0) continue;
    const std::string folder = base + "/" + name;
    try {
      const nlohmann::json record =
          nlohmann::json::parse(files::read_owned_file(folder + "/" + record_file, max_bytes));
      const pid_t pid = record.at("pid").get<pid_t>();
      visit(folder, record,
            pid > 0 && process_start_ticks(pid) == record.at("start").get<std::string>());
    } catch (const std::exception&) {
      continue;  // being made or removed, or not a folder of ours
    }
  }
  closedir(d);
}

std::vector<RunningJob> running_jobs() {
  std::vector<RunningJob> jobs;
  for_each_recorded_folder(
      "job-", kJobFile, kMaxJobFile,
      [&jobs](const std::string& folder, const nlohmann::json& job, bool alive) {
        if (!alive) {
          remove_private_folder(folder);  // its hvdrun is gone (killed with SIGKILL)
          return;
        }
        jobs.push_back({folder, job.at("pid").get<pid_t>(), job.at("command").get<std::string>()});
      });
  return jobs;
}

}  // namespace hvd::launcher::why
