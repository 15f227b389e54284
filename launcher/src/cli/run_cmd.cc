// SPDX-License-Identifier: Apache-2.0
#include "cli/run_cmd.h"

#include <iostream>
#include <set>

#include "cli/option_names.h"
#include "exec/launch.h"
#include "hvd/error.h"
#include "plan/make_plan.h"
#include "plan/plan_json.h"

namespace hvd::launcher::cli {
namespace {

// A flag pair (--x / --no-x) that leaves `target` unset unless one of them is given.
void add_switch(CLI::App& app, const std::string& on, const std::string& off,
                std::optional<bool>& target, const std::string& help) {
  app.add_flag_callback(
      on, [&target] { target = true; }, help);
  if (!off.empty())
    app.add_flag_callback(
        off, [&target] { target = false; }, "Turn off " + on);
}

void register_tunables(CLI::App& app, config::RunOptions& o) {
  const std::string group = "Tunables (override --config-file and configs/defaults.yaml)";
  auto* g = app.add_option_group(group);
  g->add_option("--fusion-threshold-mb", o.fusion_threshold_mb, "Fusion buffer size in MB (128)");
  g->add_option("--cycle-time-ms", o.cycle_time_ms, "Background cycle time in ms (1)");
  g->add_option("--cache-capacity", o.cache_capacity, "Response cache entries, 0 = off (1024)");
  add_switch(*g, "--hierarchical-allreduce", "--no-hierarchical-allreduce",
             o.hierarchical_allreduce, "Allreduce within hosts, then across hosts");
  g->add_option("--timeline-filename", o.timeline_filename, "Write a Chrome-trace timeline here");
  add_switch(*g, "--timeline-mark-cycles", "", o.timeline_mark_cycles,
             "Mark each background cycle in the timeline");
  g->add_flag_callback(
      "--no-stall-check", [&o] { o.stall_check = false; },
      "Do not warn about ranks that fall behind");
  g->add_option("--stall-check-warning-time-seconds", o.stall_warning_seconds,
                "Warn after this long waiting for other ranks (60)");
  g->add_option("--stall-check-shutdown-time-seconds", o.stall_shutdown_seconds,
                "Stop the job after this long waiting, 0 = never (0)");
  g->add_option("--log-level", o.log_level, "trace, debug, info, warning, error or fatal")
      ->transform([](std::string v) {
        for (char& c : v) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        return v;
      });
}

}  // namespace

void register_run_options(CLI::App& app, config::RunOptions& o) {
  app.add_option("-n,--num-proc", o.num_proc, "Number of ranks to start (horovodrun's -np)");
  app.add_option("--nproc-per-node,--nproc_per_node", o.nproc_per_node,
                 "Ranks per node, torchrun's way: on this machine the same as -np; in Slurm, "
                 "this many on each node (of --nnodes, default all the job's)")
      ->check(CLI::PositiveNumber);
  app.add_option("--nnodes", o.nnodes,
                 "With --nproc-per-node in Slurm: the job's first M nodes (torchrun's name; a "
                 "MIN:MAX range is not supported)")
      ->check(CLI::PositiveNumber);
  app.add_option("-H,--hosts", o.hosts, "Hosts and slots, e.g. localhost:4 (this machine only)");
  app.add_option("--hostfile", o.hostfile, "File with 'host slots=N' lines (this machine only)");
  app.add_option("--config-file", o.config_file, "YAML file with horovodrun's sections");
  app.add_option("--output-filename", o.output_filename,
                 "Also write each rank's output to DIR/rank.N/{stdout,stderr}");
  add_switch(app, "--tag-output", "--no-tag-output", o.tag_output,
             "Prefix lines with [rank]<stdout>: (default on)");
  app.add_option("--kill-grace-seconds", o.kill_grace_seconds,
                 "After a failure, SIGKILL ranks still running this long after SIGTERM (10)");
  app.add_option("--max-restarts,--max_restarts", o.max_restarts,
                 "After a rank fails, stop all and start them again, at most N times (0)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--idle-timeout", o.idle_timeout_seconds,
                 "Stop the job, exit 8, when no rank has written output for S seconds; name "
                 "each rank's last output (0 = never, the default)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--verify-every", o.verify_every,
                 "Every N optimizer steps, compare the ranks' parameters (hvdrun.torch, "
                 "hvd-train; HVD_VERIFY_EVERY); ranks that differ fail with exit 6 (0 = never)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--bind-to", o.bind_to, "Pin ranks to: core, numa, none or auto (auto)");
  app.add_flag("--dry-run", o.dry_run, "Print the launch plan as JSON; start nothing");
  app.add_flag("--check-build", o.check_build, "Show what hvdrun was built with (-cb)");
  app.add_flag("--json", o.json, "With --check-build: print JSON");
  app.add_flag("--verbose", o.verbose, "Say more about what hvdrun does");
  app.add_option("--launcher", o.launcher,
                 "auto (srun inside a Slurm job, else this machine), local or slurm")
      ->check(CLI::IsMember({"auto", "local", "slurm"}));
  app.add_option("--profile", o.profile, "Site profile name or path (default: detected)");
  app.add_option("--srun-arg", o.srun_args, "Extra srun flag, e.g. --srun-arg=--exclusive");
  app.add_flag("--mpi", o.mpi,
               "The program uses MPI: start it through mpirun here, srun --mpi=PLUGIN in Slurm");
  app.add_flag("--tf-config", o.tf_config,
               "Set TF_CONFIG (TensorFlow MultiWorkerMirroredStrategy) for every rank");
  add_switch(app, "--horovod-compat", "", o.horovod_compat,
             "Make `import horovod.torch as hvd` load hvdrun.torch in the ranks (a horovod "
             "package on their PYTHONPATH); without it nothing named horovod is added");
  app.add_option("--checkpoint-grace-seconds", o.checkpoint_grace_seconds,
                 "After SIGUSR1/SIGUSR2 (a preemption notice): SIGTERM ranks still running this "
                 "long after it (60)")
      ->check(CLI::NonNegativeNumber);
  add_switch(app, "--requeue-on-signal", "", o.requeue_on_signal,
             "Inside a Slurm batch job: after SIGUSR1/SIGUSR2, once every rank has exited 0, "
             "requeue the job (scontrol requeue); never after a failure");
  register_tunables(app, o);
}

std::set<std::string> options_taking_value(const CLI::App& app) {
  // Option groups' options too: without them, "--cycle-time-ms 1 -np 2" stopped the scan at "1"
  // and -np was never rewritten.
  std::set<std::string> names;
  for_each_option_spelling(app, [&names](const CLI::Option& opt, const std::string& spelling) {
    // A flag has a type size too; it is its expected count of 0 that says it takes no value.
    if (opt.get_items_expected_max() > 0) names.insert(spelling);
  });
  return names;
}

std::vector<std::string> take_command(const std::vector<std::string>& remaining,
                                      const CLI::App& owner, const std::string& command_name) {
  if (remaining.empty()) return {};
  if (remaining.front() == "--") return {remaining.begin() + 1, remaining.end()};
  const std::string& first = remaining.front();
  if (first.size() > 1 && first[0] == '-') {
    throw UsageError(
        str_cat(unknown_option_message(first, owner, command_name), " (put the program after --)"));
  }
  return remaining;
}

std::vector<std::string> take_command(const CLI::App& sub, const CLI::App& app) {
  if (!sub.parsed()) return {};
  std::vector<std::string> command = take_command(sub.remaining(), sub, "hvdrun " + sub.get_name());
  return command.empty() ? app.remaining() : command;
}

void refuse_leftovers(const CLI::App& sub, const std::string& command_name) {
  const std::vector<std::string> left = sub.remaining();
  if (left.empty()) return;
  const std::string& first = left.front() == "--" && left.size() > 1 ? left[1] : left.front();
  if (first.size() > 1 && first[0] == '-') {
    throw UsageError(unknown_option_message(first, sub, command_name));
  }
  throw UsageError(str_cat(command_name, " takes no program or other words: '", first,
                           "' is not expected; see ", command_name, " --help"));
}

int run_command(const config::RunOptions& opts, const EnvMap& env) {
  plan::LaunchPlan plan = plan::make_plan(opts, env);
  if (opts.dry_run) {
    std::cout << plan::to_json(plan).dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
              << std::endl;
    return 0;
  }
  return exec::launch(std::move(plan), env);
}

}  // namespace hvd::launcher::cli
