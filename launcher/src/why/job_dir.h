// SPDX-License-Identifier: Apache-2.0
#pragma once
// JobDir: a private folder per running hvdrun, through which `hvdrun why` in another shell of
// the same user finds the job and reads its verdict, and where the ranks' Python stack dumps
// land (HVD_WHY_DIR). Nothing listens: `hvdrun why` sends SIGQUIT to the hvdrun named there
// (the kernel lets only the same user signal it) and reads the verdict file hvdrun writes.
//
// Safe on a shared machine: the folders live in $XDG_RUNTIME_DIR/hvdrun or else
// /tmp/hvdrun-<uid>, which must be a real folder (not a symlink) of this user with mode 0700;
// each job's folder is made by mkdtemp inside it. A job folder names its hvdrun by pid and the
// process's start time, so a reused pid is never signalled.

#include <sys/types.h>

#include <functional>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

namespace hvd::launcher::why {

/// Field 22 of /proc/PID/stat: when the process started, in clock ticks since boot. With the
/// pid it names one process for good (a reused pid has a later start). Empty when it is gone.
std::string process_start_ticks(pid_t pid);

/// Removes a folder of hvdrun's own (a job's or a rank's, 0700) and the files in it. Never
/// throws; what cannot be removed stays.
void remove_private_folder(const std::string& path) noexcept;

/// Calls visit(folder, record, alive) for each folder in jobs_folder() named PREFIX... whose
/// `record_file` (JSON, the user's own, at most max_bytes) names a process by "pid" and "start"
/// (process_start_ticks); `alive` says whether that process still runs. A folder being made or
/// removed, a record that does not parse, and a visit that throws on a missing field are skipped.
void for_each_recorded_folder(
    const std::string& prefix, const std::string& record_file, size_t max_bytes,
    const std::function<void(const std::string&, const nlohmann::json&, bool)>& visit);

/// The per-user folder of running jobs, created 0700 when missing. Throws ConfigError when it
/// is a symlink, not a folder, another user's, or open to others.
std::string jobs_folder();

class JobDir {
 public:
  /// Makes this hvdrun's folder and its job.json (pid, start time, command). Throws
  /// ConfigError as jobs_folder().
  static JobDir create(const std::vector<std::string>& command);
  JobDir(JobDir&& other) noexcept;
  JobDir& operator=(JobDir&&) = delete;
  JobDir(const JobDir&) = delete;
  /// Removes the folder and what hvdrun and the ranks wrote in it.
  ~JobDir();
  const std::string& path() const { return path_; }
  /// The verdict's JSON, atomically, where `hvdrun why` reads it.
  void write_verdict(const std::string& json) const;

 private:
  explicit JobDir(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

/// A job found by `hvdrun why`.
struct RunningJob {
  std::string folder;
  pid_t pid = 0;
  std::string command;
};

/// This user's hvdrun jobs whose process still runs (same pid and start time). The folders of
/// jobs whose hvdrun is gone (killed with SIGKILL: it could not remove its own) are removed.
std::vector<RunningJob> running_jobs();

/// The name of the verdict file in a job folder.
inline constexpr const char* kVerdictFile = "why.json";

}  // namespace hvd::launcher::why
