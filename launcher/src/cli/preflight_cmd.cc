// SPDX-License-Identifier: Apache-2.0
#include "cli/preflight_cmd.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>

#include <nlohmann/json.hpp>

#include "cli/output_file.h"
#include "exec/launch.h"
#include "files/owned_dir.h"
#include "files/owned_file.h"
#include "hvd/error.h"
#include "hvd/str_cat.h"
#include "net/socket.h"
#include "plan/make_plan.h"
#include "preflight/verdict.h"
#include "preflight/verdict_table.h"
#include "profile/profile_catalog.h"
#include "slurm/allocation.h"
#include "slurm/hostlist.h"

namespace hvd::launcher::cli {
namespace {

namespace fs = std::filesystem;

// Where rank 0 writes its report: a private folder that rank 0 can reach. Locally that is the
// temporary folder; in an allocation the working folder, which srun gives the tasks (a node's
// /tmp is often its own). The working folder may be writable by other users (a group project
// folder), so the folder is opened once right after mkdtemp, checked to be ours and private,
// and the report is read through that descriptor with read_owned_file_at: a folder renamed away
// and replaced, a planted FIFO, symlink, another user's file or a huge one is never read.
class ReportDir {
 public:
  explicit ReportDir(const EnvMap& env) {
    const auto tmpdir = env.find("TMPDIR");
    const std::string parent = slurm::in_allocation(env) ? fs::current_path().string()
                               : tmpdir != env.end() && !tmpdir->second.empty() ? tmpdir->second
                                                                                : "/tmp";
    std::string pattern = parent + "/.hvdrun-preflight-XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) {
      throw LaunchError(str_cat(parent, ": cannot make a folder for the report: ",
                                std::strerror(errno)));
    }
    path_ = pattern;
    fd_.reset(open(path_.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    struct stat st {};
    if (!fd_.valid() || fstat(fd_.get(), &st) != 0 || st.st_uid != geteuid() ||
        (st.st_mode & 077) != 0) {
      throw LaunchError(str_cat(path_, ": the report folder was replaced before it was opened; ",
                                "run hvdrun preflight from a folder of your own"));
    }
  }
  ~ReportDir() {
    if (files::still_names(fd_.get(), path_)) {
      std::error_code ec;
      fs::remove_all(path_, ec);  // best effort: a leftover folder is harmless
    }
  }
  ReportDir(const ReportDir&) = delete;
  ReportDir& operator=(const ReportDir&) = delete;
  std::string report() const { return path_ + "/" + kReportName; }

  /// The report rank 0 wrote, read through the folder opened at creation.
  nlohmann::json read_report() const {
    if (faccessat(fd_.get(), kReportName, F_OK, AT_SYMLINK_NOFOLLOW) != 0) {
      throw ConfigError(str_cat(report(), ": hvd-preflight wrote no report"));
    }
    const std::string text = files::read_owned_file_at(fd_.get(), kReportName, kMaxReportBytes);
    try {
      return nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {
      throw ConfigError(str_cat(report(), ": not JSON: ", e.what()));
    }
  }

 private:
  static constexpr const char* kReportName = "report.json";
  // Figures for every node and link; far below this even for thousands of nodes.
  static constexpr size_t kMaxReportBytes = size_t{256} << 20;
  std::string path_;
  net::Fd fd_;
};

std::vector<std::string> rank_command(const PreflightOptions& o, const std::string& report,
                                      const std::vector<std::string>& nics) {
  const fs::path self = fs::read_symlink("/proc/self/exe");
  std::vector<std::string> command = {(self.parent_path() / "hvd-preflight").string(), "--out",
                                      report, "--bytes", std::to_string(o.bytes)};
  if (!nics.empty()) {
    std::string list;
    for (const std::string& nic : nics) list += (list.empty() ? "" : ",") + nic;
    command.insert(command.end(), {"--nics", list});
  }
  return command;
}

}  // namespace

CLI::App* register_preflight(CLI::App& app, PreflightOptions& o) {
  CLI::App* sub = app.add_subcommand(
      "preflight",
      "Check every node quickly before a long job: GPUs, the profile's NICs, clocks, memory "
      "bandwidth, libhvd allreduce latency and bandwidth; flag the slow node or link");
  config::RunOptions& r = o.run;
  sub->add_option("-n,--num-proc", r.num_proc, "Number of ranks (horovodrun's -np)");
  sub->add_option("-H,--hosts", r.hosts, "Hosts and slots, e.g. localhost:4 (this machine only)");
  sub->add_option("--hostfile", r.hostfile, "File with 'host slots=N' lines (this machine only)");
  sub->add_option("--config-file", r.config_file, "YAML file with horovodrun's sections");
  sub->add_option("--profile", r.profile, "Site profile name or path (default: detected)");
  sub->add_option("--launcher", r.launcher, "auto, local or slurm (as for a run)")
      ->check(CLI::IsMember({"auto", "local", "slurm"}));
  sub->add_option("--srun-arg", r.srun_args, "Extra srun flag, e.g. --srun-arg=--exclusive");
  sub->add_option("--bind-to", r.bind_to, "Pin ranks to: core, numa, none or auto (auto)");
  sub->add_flag("--verbose", r.verbose, "Say more about what hvdrun does");
  sub->add_option("--threshold", o.threshold,
                  "Flag a node or link worse than this times the median of its kind (0.7)")
      ->check(CLI::Range(0.01, 1.0));
  sub->add_flag("--strict", o.strict,
                str_cat("Exit ", kExitPreflightFlagged, " when a node or link is flagged"));
  sub->add_option("--json", o.json_file, "Also write the verdict and figures here as JSON");
  sub->add_option("--bytes", o.bytes, "Size of the timed large allreduce (4194304)")
      ->check(CLI::Range(4, 1 << 30));
  sub->footer(str_cat("Exit codes: 0 done (flagged or not, without --strict); ",
                      kExitPreflightFlagged,
                      " with --strict when something is flagged; 5 also when --json cannot be "
                      "written; otherwise as for a run."));
  return sub;
}

int run_preflight(const PreflightOptions& o, const EnvMap& env) {
  const bool sized = o.run.num_proc || !o.run.hosts.empty() || !o.run.hostfile.empty();
  if (!sized && !slurm::in_allocation(env) && o.run.launcher != "slurm") {
    throw UsageError(
        "hvdrun preflight: -np is required outside a Slurm allocation: how many ranks to check "
        "on this machine (e.g. hvdrun preflight -np 4)");
  }
  const profile::SiteProfile profile = profile::resolve_profile(o.run.profile, env);
  OutputFile json_out(o.json_file);  // a --json that cannot be written fails before the checks
  ReportDir dir(env);
  config::RunOptions run = o.run;
  run.command = rank_command(o, dir.report(), profile.nics);
  const int rc = exec::launch(plan::make_plan(run, env), env);
  if (rc != 0) {
    std::cerr << "hvdrun: preflight: hvd-preflight failed (exit " << rc << "); nothing judged"
              << std::endl;
    return rc;
  }
  const preflight::Verdict verdict =
      preflight::judge(dir.read_report(), o.threshold, {profile.gpus_per_node, profile.gpu_model});
  preflight::print_verdict(std::cout, verdict);
  if (!verdict.flagged_hosts.empty()) {
    std::cout << "--exclude=" << slurm::compress_hostlist(verdict.flagged_hosts) << std::endl;
  }
  if (!o.json_file.empty()) json_out.write_all(preflight::to_json(verdict).dump(2) + "\n");
  return o.strict && verdict.anything_flagged() ? kExitPreflightFlagged : 0;
}

}  // namespace hvd::launcher::cli
