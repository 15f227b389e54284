// SPDX-License-Identifier: Apache-2.0
#include "cli/sbatch_cmd.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/slurm_run.h"
#include "config/data_dirs.h"
#include "files/atomic_file.h"
#include "hvd/error.h"
#include "profile/profile_guards.h"
#include "slurm/slurm_tools.h"

namespace hvd::launcher::cli {
namespace {

std::string read_template(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ConfigError(str_cat(path, ": cannot read template: ", std::strerror(errno)));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The line that runs hvdrun inside the job, with the same profile file this script came from.
std::vector<std::string> launch_line(const SbatchOptions& o, const profile::SiteProfile& p) {
  std::vector<std::string> line = {std::filesystem::read_symlink("/proc/self/exe").string()};
  line.insert(line.end(), {"--profile", p.source.empty() ? p.name : p.source});
  line.insert(line.end(), o.hvdrun_args.begin(), o.hvdrun_args.end());
  line.push_back("--");
  line.insert(line.end(), p.container.begin(), p.container.end());  // one argument each
  line.insert(line.end(), o.command.begin(), o.command.end());
  return line;
}

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

// A temporary file that is removed when it goes out of scope.
struct TempFile {
  std::string path = "/var/tmp/hvdrun-sbatch-XXXXXX";
  int fd = mkstemp(path.data());
  ~TempFile() {
    if (fd >= 0) close(fd);
    unlink(path.c_str());
  }
  std::string text() const {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
};

// Runs `sbatch --parsable` with the script on stdin; returns the job id.
std::string submit(const std::string& script, const EnvMap& env) {
  const std::string sbatch = slurm::find_slurm_tool("sbatch", env);
  TempFile in, out, err;
  if (in.fd < 0 || out.fd < 0 || err.fd < 0 ||
      write(in.fd, script.data(), script.size()) != static_cast<ssize_t>(script.size()) ||
      lseek(in.fd, 0, SEEK_SET) != 0) {
    throw SchedulerError(str_cat("cannot stage the script for sbatch: ", std::strerror(errno)));
  }
  const pid_t pid = fork();
  if (pid < 0) throw SchedulerError(str_cat("fork failed: ", std::strerror(errno)));
  if (pid == 0) {
    dup2(in.fd, STDIN_FILENO);
    dup2(out.fd, STDOUT_FILENO);
    dup2(err.fd, STDERR_FILENO);
    execl(sbatch.c_str(), "sbatch", "--parsable", static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  const std::string said = trim(err.text());
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    throw SchedulerError(str_cat("sbatch rejected the script: ", said.empty() ? "no message" : said));
  }
  // --parsable prints "jobid" or "jobid;cluster". Warnings on stderr do not mean failure.
  const std::string id = trim(out.text());
  return id.substr(0, id.find(';'));
}

}  // namespace

CLI::App* register_sbatch(CLI::App& app, SbatchOptions& o) {
  CLI::App* cmd = app.add_subcommand("sbatch", "Render a Slurm batch script for a site (and submit it)");
  slurm::BatchRequest& r = o.request;
  cmd->add_option("--profile", o.profile, "Site profile name or path (default: detected)");
  cmd->add_option("-N,--nodes", r.nodes, "Number of nodes (1)");
  cmd->add_option("-t,--time", r.time, "Time limit, e.g. 02:00:00 or 1-12:00:00")->required();
  cmd->add_option("-A,--account", r.account, "Account (project) to charge");
  cmd->add_option("-p,--partition", r.partition, "Partition (default: the profile's)");
  cmd->add_option("-q,--qos", r.qos, "QOS (default: the profile's)");
  cmd->add_option("-J,--job-name", r.job_name, "Job name (hvdrun)");
  cmd->add_option("--gpus-per-node", r.gpus_per_node, "GPUs per node (default: all of a node's)");
  cmd->add_option("--ntasks-per-node", r.ntasks_per_node, "Ranks per node (default: one per GPU)");
  cmd->add_option("--log", r.log_file, "Job output file (hvdrun-%j.out)");
  cmd->add_option("--signal-lead", r.signal_lead_seconds,
                  "Ask Slurm for a preemption signal this many seconds before the end");
  cmd->add_option("--preempt-signal", r.preempt_signal, "That signal: USR1 or USR2 (USR2)")
      ->check(CLI::IsMember({"USR1", "USR2"}));
  cmd->add_flag("--exclusive", r.exclusive, "Whole nodes only");
  cmd->add_option(
      "--sbatch-arg", r.extra_directives,
      "Extra #SBATCH flag, one per --sbatch-arg (quoted for sbatch if it holds spaces)");
  cmd->add_option("--hvdrun-arg", o.hvdrun_args, "Option for hvdrun inside the job, e.g. --hvdrun-arg=-np --hvdrun-arg=8");
  cmd->add_option("-o,--output", o.output, "Write the script to this file instead of printing it");
  cmd->add_option("--template", o.template_file, "Your own mustache template");
  cmd->add_flag("--submit", o.submit, "Submit with sbatch --parsable and print the job id");
  cmd->prefix_command();
  return cmd;
}

int run_sbatch(const SbatchOptions& o, const EnvMap& env) {
  if (o.command.empty()) {
    throw UsageError("hvdrun sbatch: no program given: put it after --, e.g. -- python3 train.py");
  }
  const profile::SiteProfile p = resolve_profile(o.profile, env);
  slurm::BatchRequest request = o.request;
  request.launch = launch_line(o, p);
  slurm::check_batch_request(request, p);
  profile::GuardContext guard{request.extra_directives, env};
  for (const profile::EnvVar& v : p.env) guard.rank_env.emplace(v.name, v.value);
  profile::check_guards(p, guard);
  const std::string template_path =
      !o.template_file.empty() ? o.template_file
                               : config::data_dir() + "/templates/sbatch/default.sbatch.mustache";
  const std::string script =
      slurm::render_batch_script(request, p, read_template(template_path), template_path);
  // hvd::files: a mkstemp name beside the target, fsync, rename, directory fsync. Never a
  // predictable temporary name, which another user's symlink could point at a file of ours.
  if (!o.output.empty()) files::write_file_atomically(o.output, script, 0755);
  if (o.submit) {
    std::cout << submit(script, env) << std::endl;
  } else if (o.output.empty()) {
    std::cout << script << std::flush;
  }
  return 0;
}

}  // namespace hvd::launcher::cli
