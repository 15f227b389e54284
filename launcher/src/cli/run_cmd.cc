// SPDX-License-Identifier: Apache-2.0
#include "cli/run_cmd.h"

#include <unistd.h>

#include <iostream>
#include <set>

#include "auth/run_secret.h"
#include "binding/cpu_topology.h"
#include "binding/gpu_inventory.h"
#include "cli/mpirun_launch.h"
#include "cli/slurm_run.h"
#include "cli/timeline_finish.h"
#include "config/data_dirs.h"
#include "config/launch_config.h"
#include "exec/guard.h"
#include "exec/output_router.h"
#include "exec/program_lookup.h"
#include "exec/supervisor.h"
#include "hvd/env_keys.h"
#include "hvd/error.h"
#include "plan/launch_plan.h"
#include "plan/plan_json.h"
#include "slurm/allocation.h"
#include "store/kv_server.h"

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

// One child per rank: the inherited environment with the rank's own variables on top, and the
// run's secret, which stays out of the plan so that --dry-run cannot print it.
std::vector<exec::Child> local_children(const plan::LaunchPlan& p, const EnvMap& env,
                                        const auth::RunSecret& secret) {
  std::vector<exec::Child> children;
  for (const plan::RankPlan& r : p.ranks) {
    EnvMap full = env;
    for (const auto& [key, value] : r.env) full[key] = value;
    full[env::kRunSecret] = secret.hex();
    exec::Child c{str_cat("rank ", r.rank, " on ", r.host),
                  {p.program, p.command, {}, r.binding.cpus},
                  r.rank,
                  {}};
    for (const auto& [key, value] : full) c.request.env.push_back(key + "=" + value);
    children.push_back(std::move(c));
  }
  return children;
}

// Ports on this machine: the store's (already listening, or 0 to pick one for --dry-run),
// MASTER_PORT, and with --tf-config one per rank, all different.
plan::Endpoints local_endpoints(uint16_t store_port, int num_proc, bool tf_config) {
  std::set<uint16_t> taken;
  const auto pick = [&taken] {
    for (;;) {
      const uint16_t port = net::pick_free_port("127.0.0.1");
      if (taken.insert(port).second) return port;
    }
  };
  plan::Endpoints ep;
  ep.store_port = store_port != 0 ? store_port : pick();
  taken.insert(ep.store_port);
  ep.master_port = pick();
  for (int i = 0; tf_config && i < num_proc; ++i) ep.tf_ports.push_back(pick());
  ep.run_id = plan::make_run_id();
  return ep;
}

void print_dry_run(const config::LaunchConfig& cfg, const plan::MachineFacts& facts,
                   const std::string& program, bool tf_config) {
  const plan::Endpoints ep = local_endpoints(0, cfg.num_proc, tf_config);
  const plan::LaunchPlan p = plan::build_local_plan(cfg, facts, ep, program);
  std::cout << plan::to_json(p).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << std::endl;
}

}  // namespace

void register_run_options(CLI::App& app, config::RunOptions& o) {
  app.add_option("-n,--num-proc", o.num_proc, "Number of ranks to start (horovodrun's -np)");
  app.add_option("-H,--hosts", o.hosts, "Hosts and slots, e.g. localhost:4 (this machine only)");
  app.add_option("--hostfile", o.hostfile, "File with 'host slots=N' lines (this machine only)");
  app.add_option("--config-file", o.config_file, "YAML file with horovodrun's sections");
  app.add_option("--output-filename", o.output_filename,
                 "Also write each rank's output to DIR/rank.N/{stdout,stderr}");
  add_switch(app, "--tag-output", "--no-tag-output", o.tag_output,
             "Prefix lines with [rank]<stdout>: (default on)");
  app.add_option("--kill-grace-seconds", o.kill_grace_seconds,
                 "After a failure, SIGKILL ranks still running this long after SIGTERM (10)");
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
  register_tunables(app, o);
}

namespace {

void collect_options_taking_value(const CLI::App& app, std::set<std::string>& names) {
  for (const CLI::Option* opt : app.get_options()) {
    // A flag has a type size too; it is its expected count of 0 that says it takes no value.
    if (opt->get_items_expected_max() <= 0 || opt->get_positional()) continue;
    for (const std::string& s : opt->get_snames()) names.insert("-" + s);
    for (const std::string& l : opt->get_lnames()) names.insert("--" + l);
  }
  // Option groups are nameless subcommands, and CLI11's get_options() leaves their options
  // out: without them, "--cycle-time-ms 1 -np 2" stopped the scan at "1" and -np was never
  // rewritten.
  for (const CLI::App* group : app.get_subcommands({})) {
    if (group->get_name().empty()) collect_options_taking_value(*group, names);
  }
}

}  // namespace

std::set<std::string> options_taking_value(const CLI::App& app) {
  std::set<std::string> names;
  collect_options_taking_value(app, names);
  return names;
}

std::vector<std::string> take_command(const std::vector<std::string>& remaining) {
  if (remaining.empty()) return {};
  if (remaining.front() == "--") return {remaining.begin() + 1, remaining.end()};
  const std::string& first = remaining.front();
  if (first.size() > 1 && first[0] == '-') {
    throw UsageError(
        str_cat("unknown option '", first, "'; see hvdrun --help (put the program after --)"));
  }
  return remaining;
}

std::vector<std::string> take_command(const CLI::App& sub, const CLI::App& app) {
  if (!sub.parsed()) return {};
  std::vector<std::string> command = take_command(sub.remaining());
  return command.empty() ? app.remaining() : command;
}

int run_command(const config::RunOptions& opts, const EnvMap& env) {
  const bool in_job = slurm::in_allocation(env);
  if (opts.launcher == "slurm" && !in_job) {
    throw SchedulerError(
        "--launcher slurm: not inside a Slurm job (SLURM_JOB_ID is not set); "
        "start hvdrun from salloc or a batch script, or use hvdrun sbatch");
  }
  if (opts.launcher == "slurm" || (opts.launcher == "auto" && in_job)) {
    return run_in_allocation(opts, env);
  }
  if (opts.mpi) return run_mpirun(opts, env);
  return run_local(opts, env);
}

int run_local(const config::RunOptions& opts, const EnvMap& env) {
  const config::LaunchConfig cfg =
      config::resolve_launch_config(opts, config::defaults_file(), local::this_machine_names(), env);
  const std::string program = exec::resolve_program(cfg.command.front(), env);

  plan::MachineFacts facts;
  facts.hostname = local::this_host_name();
  facts.topology = binding::load_cpu_topology();
  facts.gpus = binding::find_gpus(env);
  if (!facts.gpus.empty()) binding::fill_gpu_numa(facts.gpus);
  facts.env = env;
  facts.python_dirs = config::python_dirs(cfg.settings.launcher.horovod_compat);
  if (cfg.dry_run) {
    print_dry_run(cfg, facts, program, opts.tf_config);
    return 0;
  }

  exec::block_forwarded_signals();  // before the store's thread starts: it inherits the mask
  exec::Guard guard = exec::Guard::start();  // before any thread, too (exec/guard.h)
  const auth::RunSecret secret = auth::RunSecret::generate();
  store::KvServer store("127.0.0.1", 0, secret, store::StoreLimits::for_ranks(cfg.num_proc));
  const plan::Endpoints ep = local_endpoints(store.port(), cfg.num_proc, opts.tf_config);
  guard.watch_run_segments(ep.run_id);
  const plan::LaunchPlan p = plan::build_local_plan(cfg, facts, ep, program);
  exec::OutputRouter router(p.size, cfg.settings.launcher.tag_output, cfg.output_dir, STDOUT_FILENO,
                            STDERR_FILENO);
  exec::Supervisor supervisor(local_children(p, env, secret), router,
                              std::chrono::seconds(cfg.settings.launcher.kill_grace_seconds),
                              &guard);
  const int code = supervisor.run();
  guard.finish();
  finish_timeline(cfg.settings.tunables, p.size);
  return code;
}

}  // namespace hvd::launcher::cli
