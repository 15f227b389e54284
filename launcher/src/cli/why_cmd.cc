// SPDX-License-Identifier: Apache-2.0
#include "cli/why_cmd.h"

#include <signal.h>
#include <sys/stat.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <iostream>
#include <nlohmann/json.hpp>
#include <thread>

#include "files/owned_file.h"
#include "hvd/error.h"
#include "why/job_dir.h"

namespace hvd::launcher::cli {
namespace {

constexpr size_t kMaxVerdictBytes = size_t{64} << 20;

why::RunningJob choose_job(const WhyOptions& o) {
  std::vector<why::RunningJob> jobs = why::running_jobs();
  if (o.pid != 0) {
    for (const why::RunningJob& j : jobs) {
      if (j.pid == o.pid) return j;
    }
    throw UsageError(str_cat("--pid ", o.pid, ": no running hvdrun job of yours has that pid"));
  }
  if (jobs.empty()) {
    throw UsageError(str_cat("no running hvdrun job of yours was found (in ", why::jobs_folder(),
                             "); start one, or run hvdrun why on the host where hvdrun runs"));
  }
  if (jobs.size() > 1) {
    std::string list;
    for (const why::RunningJob& j : jobs) list += str_cat("\n  --pid ", j.pid, "  ", j.command);
    throw UsageError(str_cat(jobs.size(), " hvdrun jobs of yours run; name one:", list));
  }
  return jobs.front();
}

// Identifies the verdict file's current version: hvdrun replaces it by rename.
std::pair<ino_t, int64_t> version_of(const std::string& path) {
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0) return {0, 0};
  return {st.st_ino, static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec};
}

}  // namespace

CLI::App* register_why(CLI::App& app, WhyOptions& o) {
  CLI::App* why = app.add_subcommand(
      "why", "Where each rank of a running job is, and which one holds the others up");
  why->add_option("--pid", o.pid, "The hvdrun to ask, when several of yours run")
      ->check(CLI::PositiveNumber);
  why->add_flag("--json", o.json, "Print the verdict as JSON");
  why->add_option("--timeout", o.timeout_s, "Seconds to wait for the verdict (default 30)")
      ->check(CLI::Range(1.0, 3600.0));
  return why;
}

int run_why(const WhyOptions& o, std::ostream& out) {
  const why::RunningJob job = choose_job(o);
  const std::string path = job.folder + "/" + why::kVerdictFile;
  const auto before = version_of(path);
  if (kill(job.pid, SIGQUIT) != 0) {
    throw LaunchError(str_cat("cannot signal hvdrun (pid ", job.pid, "): ", std::strerror(errno)));
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(o.timeout_s);
  while (version_of(path) == before) {
    if (std::chrono::steady_clock::now() >= deadline) {
      throw TimeoutError(str_cat("hvdrun (pid ", job.pid, ") gave no verdict within ", o.timeout_s,
                                 " s; try a longer --timeout"));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  const std::string text = files::read_owned_file(path, kMaxVerdictBytes);
  if (o.json) {
    out << text << "\n";
    return 0;
  }
  const nlohmann::json verdict = nlohmann::json::parse(text, nullptr, false);
  if (verdict.is_discarded() || !verdict.contains("screen") || !verdict["screen"].is_string()) {
    throw ConfigError(str_cat(path, ": not a verdict written by hvdrun; ask again"));
  }
  out << verdict["screen"].get<std::string>() << "\n";
  return 0;
}

}  // namespace hvd::launcher::cli
