// SPDX-License-Identifier: Apache-2.0
#include "cli/sbatch_cmd.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "config/data_dirs.h"
#include "config/settings_layers.h"
#include "config/tunables.h"
#include "cli/output_file.h"
#include "hvd/error.h"
#include "cli/argv_compat.h"
#include "cli/parse_error_text.h"
#include "cli/run_cmd.h"
#include "plan/batch_preview.h"
#include "profile/profile_catalog.h"
#include "profile/profile_guards.h"
#include "slurm/sbatch_submit.h"

namespace hvd::launcher::cli {
namespace {

std::string read_template(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ConfigError(str_cat(path, ": cannot read template: ", std::strerror(errno)));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// This hvdrun's own path: the job runs the same build.
std::string this_hvdrun() { return std::filesystem::read_symlink("/proc/self/exe").string(); }

// The profile as the job's hvdrun is to find it: the file this script came from, else its name.
std::string profile_arg(const profile::SiteProfile& p) { return p.source.empty() ? p.name : p.source; }

// The line that runs hvdrun inside the job, with the same profile file this script came from.
std::vector<std::string> launch_line(const SbatchOptions& o, const profile::SiteProfile& p) {
  std::vector<std::string> line = {this_hvdrun()};
  line.insert(line.end(), {"--profile", profile_arg(p)});
  line.insert(line.end(), o.hvdrun_args.begin(), o.hvdrun_args.end());
  line.push_back("--");
  line.insert(line.end(), p.container.begin(), p.container.end());  // one argument each
  line.insert(line.end(), o.command.begin(), o.command.end());
  return line;
}

// The options hvdrun gets inside the job, read the way the job's hvdrun will read them, so that
// a typo in --hvdrun-arg fails now and not after the job waited in the queue.
config::RunOptions job_run_options(const SbatchOptions& o, const profile::SiteProfile& p) {
  CLI::App app{"", "hvdrun"};
  config::RunOptions opts;
  register_run_options(app, opts);
  std::vector<std::string> args = {"hvdrun"};
  args.insert(args.end(), o.hvdrun_args.begin(), o.hvdrun_args.end());
  args = normalize_horovodrun_args(args, options_taking_value(app));
  std::vector<char*> cargs;
  for (std::string& a : args) cargs.push_back(a.data());
  try {
    app.parse(static_cast<int>(cargs.size()), cargs.data());
  } catch (const CLI::ParseError& e) {
    throw UsageError(str_cat("--hvdrun-arg: ", parse_error_text(e, app)));
  }
  // As launch_line() passes them.
  opts.profile = profile_arg(p);
  opts.command = p.container;
  opts.command.insert(opts.command.end(), o.command.begin(), o.command.end());
  return opts;
}

// `hvdrun preflight --strict` in the job, with the job's profile, before the program.
std::vector<std::string> preflight_line(const profile::SiteProfile& p) {
  return {this_hvdrun(), "preflight", "--strict", "--profile", profile_arg(p)};
}

// With --requeue-on-signal and no --signal-lead: enough for the default checkpoint grace (60 s),
// the kill grace after it (10 s) and the requeue. submitit's default is 90 s.
constexpr int kDefaultRequeueLead = 120;

// hvdrun's own --requeue-on-signal for the job, unless --hvdrun-arg gave it already.
void add_requeue_arg(std::vector<std::string>& hvdrun_args) {
  for (const std::string& a : hvdrun_args) {
    if (a == "--requeue-on-signal") return;
  }
  hvdrun_args.push_back("--requeue-on-signal");
}

// Slurm kills the job at the end of the lead; the ranks' grace must end before that. The grace
// is resolved as the job's hvdrun will (defaults file, a --config-file given through
// --hvdrun-arg, the flag), so a bad config file also fails here rather than in the queue.
void check_requeue_lead(const slurm::BatchRequest& r, const config::RunOptions& job,
                        const EnvMap& env) {
  std::vector<std::string> sources;
  const int grace = config::resolve_settings(job, config::defaults_file(), sources, env)
                        .launcher.checkpoint_grace_seconds;
  if (r.signal_lead_seconds <= grace) {
    throw UsageError(str_cat("--signal-lead ", r.signal_lead_seconds,
                             " s leaves no time to requeue after the ranks' checkpoint grace of ",
                             grace, " s: give a longer --signal-lead or a shorter "
                             "--hvdrun-arg=--checkpoint-grace-seconds=S"));
  }
}

}  // namespace

CLI::App* register_sbatch(CLI::App& app, SbatchOptions& o) {
  CLI::App* cmd = app.add_subcommand("sbatch", "Render a Slurm batch script for a site (and submit it)");
  slurm::BatchRequest& r = o.request;
  cmd->add_option("--profile", o.profile, "Site profile name or path (default: detected)");
  cmd->add_option("-N,--nodes", r.nodes, "Number of nodes (1)");
  cmd->add_option("-t,--time", r.time,
                  "Time limit, e.g. 02:00:00 or 1-12:00:00 (required, except with --explain)");
  cmd->add_option("-A,--account", r.account, "Account (project) to charge");
  cmd->add_option("-p,--partition", r.partition, "Partition (default: the profile's)");
  cmd->add_option("-q,--qos", r.qos, "QOS (default: the profile's)");
  cmd->add_option("-J,--job-name", r.job_name, "Job name (hvdrun)");
  // Their "not given" values (-1, 0) must not be reachable by hand: --ntasks-per-node 0 quietly
  // meant the profile's default, and --signal-lead -5 no signal at all.
  cmd->add_option("--gpus-per-node", r.gpus_per_node, "GPUs per node (default: all of a node's)")
      ->check(CLI::Range(0, 1024));
  cmd->add_option("--ntasks-per-node", r.ntasks_per_node, "Ranks per node (default: one per GPU)")
      ->check(CLI::Range(1, 100000));
  cmd->add_option("--log", r.log_file, "Job output file (hvdrun-%j.out)");
  cmd->add_option("--signal-lead", r.signal_lead_seconds,
                  "Ask Slurm for a preemption signal this many seconds before the end")
      ->check(CLI::Range(1, 65535));  // Slurm's --signal takes at most 65535 s
  cmd->add_option("--preempt-signal", r.preempt_signal, "That signal: USR1 or USR2 (USR2)")
      ->check(CLI::IsMember({"USR1", "USR2"}));
  cmd->add_flag("--requeue-on-signal", r.requeue_on_signal,
                "On the preemption signal (--signal-lead, default 120 s), give the ranks time to "
                "checkpoint (--hvdrun-arg=--checkpoint-grace-seconds=S, 60), then requeue the "
                "job if they all exited 0 (#SBATCH --requeue)");
  cmd->add_flag("--preflight", o.preflight,
                "Run hvdrun preflight --strict on the allocation before the program: a flagged "
                "node or link ends the job (exit 6) with an --exclude= line in the log, and the "
                "figures in hvdrun-preflight-<job id>.json");
  cmd->add_flag("--exclusive", r.exclusive, "Whole nodes only");
  cmd->add_option(
      "--sbatch-arg", r.extra_directives,
      "Extra #SBATCH flag, one per --sbatch-arg (quoted for sbatch if it holds spaces)");
  cmd->add_option("--hvdrun-arg", o.hvdrun_args, "Option for hvdrun inside the job, e.g. --hvdrun-arg=-np --hvdrun-arg=8");
  cmd->add_option("-o,--output", o.output, "Write the script to this file instead of printing it");
  cmd->add_option("--template", o.template_file, "Your own mustache template");
  cmd->add_flag("--submit", o.submit, "Submit with sbatch --parsable and print the job id");
  cmd->add_option("--submit-timeout", o.submit_timeout_seconds,
                  "Stop sbatch after this many seconds without an answer (60)")
      ->check(CLI::PositiveNumber);
  cmd->add_flag("--explain", o.explain,
                "Print only what hvdrun will run in the job: the srun line, and each rank's GPU "
                "and CPUs on a node (the script has the same in comments)");
  cmd->prefix_command();
  return cmd;
}

int run_sbatch(const SbatchOptions& o, const EnvMap& env) {
  if (o.command.empty()) {
    throw UsageError("hvdrun sbatch: no program given: put it after --, e.g. -- python3 train.py");
  }
  const profile::SiteProfile p = profile::resolve_profile(o.profile, env);
  slurm::BatchRequest request = o.request;
  SbatchOptions options = o;
  if (request.requeue_on_signal) {
    if (request.signal_lead_seconds == 0) request.signal_lead_seconds = kDefaultRequeueLead;
    add_requeue_arg(options.hvdrun_args);
    check_requeue_lead(request, job_run_options(options, p), env);
  }
  request.launch = launch_line(options, p);
  if (o.preflight) request.preflight = preflight_line(p);
  if (o.explain) {
    slurm::check_batch_shape(request, p);
  } else {
    slurm::check_batch_request(request, p);
  }
  profile::GuardContext guard{request.extra_directives, env};
  for (const profile::EnvVar& v : p.env) guard.rank_env.emplace(v.name, v.value);
  profile::check_guards(p, guard);
  const plan::BatchPreview preview = plan::preview_batch_step(
      request, p, job_run_options(options, p), env, request.launch.front());
  request.explain = plan::describe(preview);
  if (o.explain) {
    for (const std::string& line : request.explain) std::cout << line << "\n";
    std::cout << std::flush;
    return 0;
  }
  const std::string template_path =
      !o.template_file.empty() ? o.template_file
                               : config::data_dir() + "/templates/sbatch/default.sbatch.mustache";
  const std::string script =
      slurm::render_batch_script(request, p, read_template(template_path), template_path);
  // hvd::files: a mkstemp name beside the target, fsync, rename, directory fsync. Never a
  // predictable temporary name, which another user's symlink could point at a file of ours.
  OutputFile(o.output, 0755).write_all(script);
  if (o.submit) {
    const std::chrono::seconds limit(o.submit_timeout_seconds);
    std::cout << slurm::submit_batch_script(script, env, limit) << std::endl;
  } else if (o.output.empty()) {
    std::cout << script << std::flush;
  }
  return 0;
}

}  // namespace hvd::launcher::cli
