// SPDX-License-Identifier: Apache-2.0
#include "exec/launch.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <optional>

#include "auth/run_secret.h"
#include "exec/fd_limit.h"
#include "exec/guard.h"
#include "exec/output_router.h"
#include "exec/requeue.h"
#include "exec/restart_policy.h"
#include "exec/srun_report.h"
#include "exec/run_outcome.h"
#include "exec/supervisor.h"
#include "exec/timeline_finish.h"
#include "exec/why_service.h"
#include "exec/torchelastic_errors.h"
#include "hvd/env_keys.h"
#include "hvd/error.h"
#include "plan/make_plan.h"
#include "slurm/srun_command.h"
#include "store/kv_server.h"

namespace hvd::launcher::exec {
namespace {

// How long hvdrun waits at the end for stdout and stderr to take what is left.
constexpr std::chrono::seconds kFinalFlush{3};

// What the ranks learn of hvdrun's diagnostics (exec/why_service.h).
struct JobView {
  const why::JobDir* dir = nullptr;
  bool enforces_stall_shutdown = false;
};

std::vector<std::string> flatten(const EnvMap& env) {
  std::vector<std::string> entries;
  entries.reserve(env.size());
  for (const auto& [key, value] : env) entries.push_back(key + "=" + value);
  return entries;
}

// `env` with `overlay` on top and the run's secret, which stays out of the plan so that
// --dry-run cannot print it. The secret reaches srun's tasks and mpirun's ranks through the
// environment they pass on (never argv, which every user sees in ps).
EnvMap child_env_map(const EnvMap& env, const EnvMap& overlay, const auth::RunSecret& secret,
                     const JobView& job) {
  EnvMap full = env;
  for (const auto& [key, value] : overlay) full[key] = value;
  full[env::kRunSecret] = secret.hex();
  if (job.dir != nullptr) full[env::kWhyDir] = job.dir->path();
  // hvdrun stops a hung job itself, after printing the verdict (exec/why_service.h): libhvd's
  // own stall shutdown would end the ranks first, with nothing said about where they were.
  if (job.enforces_stall_shutdown) full[env::kStallShutdownTime] = "0";
  return full;
}

std::vector<std::string> child_env(const EnvMap& env, const EnvMap& overlay,
                                   const auth::RunSecret& secret, const JobView& job) {
  return flatten(child_env_map(env, overlay, secret, job));
}

// srun's "5" as a rank number; -1 for a list or range of tasks ("0-4,6").
int single_task(const std::string& tasks) {
  const bool one_number = !tasks.empty() && tasks.size() <= 9 &&
                          tasks.find_first_not_of("0123456789") == std::string::npos;
  if (!one_number) return -1;
  return std::stoi(tasks);
}

// A port the plan gave the ranks (MASTER_PORT, TF_CONFIG's) was free when it was picked and
// then released, so the store's own port 0 could land on it.
bool port_taken(const plan::Endpoints& ep, uint16_t port) {
  return port == ep.master_port ||
         std::find(ep.tf_ports.begin(), ep.tf_ports.end(), port) != ep.tf_ports.end();
}

// Starts the plan's store into `store` (KvServer does not move) and tells the plan its port.
void start_store(plan::LaunchPlan& plan, const auth::RunSecret& secret,
                 std::optional<store::KvServer>& store) {
  if (!plan.hosts_store) return;
  const store::StoreLimits limits = store::StoreLimits::for_ranks(plan.size);
  store.emplace(plan.store_bind_address, 0, secret, limits);
  while (port_taken(plan.endpoints, store->port())) {
    store.reset();
    store.emplace(plan.store_bind_address, 0, secret, limits);
  }
  plan::attach_store(plan, plan.store_bind_address, store->port());
}

// One start of the job: a new secret and store for `plan` (this attempt's copy), its ranks or
// its srun / mpirun, until all are gone. The guard and the router carry on across attempts.
// The verdict's settings for this attempt: its store and secret, the stall check's times.
WhyServiceOptions why_options(const plan::LaunchPlan& plan, const EnvMap& env,
                              const auth::RunSecret& secret, const why::JobDir* job) {
  WhyServiceOptions o;
  if (plan.hosts_store) {
    o.collect.store_host = plan.endpoints.store_addr;
    o.collect.store_port = plan.endpoints.store_port;
  }
  o.collect.secret = secret;
  o.collect.why_dir = job != nullptr ? job->path() : std::string();
  if (plan.mode == plan::Mode::kSlurm && plan.slurm && plan.starter) {
    // The ranks are on the step's nodes, out of hvdrun's reach: a task on each node signals
    // them (why/node_agent.h), with the environment srun's tasks get (run id, store, secret).
    o.collect.remote_argv =
        slurm::build_why_node_command(plan.starter->path, plan.slurm->job_id,
                                      plan.slurm->job_nodes.size(), plan.slurm->hvdrun);
    o.collect.remote_env =
        child_env_map(env, plan.starter->env, secret, JobView{job, plan.hosts_store});
  }
  o.ranks = plan.size;
  const config::Tunables& t = plan.settings.tunables;
  o.warning_s = t.stall_warning_seconds;
  o.shutdown_s = t.stall_check_enabled && plan.hosts_store ? t.stall_shutdown_seconds : 0;
  o.verdict_path = plan.output_dir.empty() ? str_cat("hvdrun-why-", getpid(), ".json")
                                           : plan.output_dir + "/hvdrun-why.json";
  o.job = job;
  return o;
}

RunOutcome run_attempt(plan::LaunchPlan& plan, const EnvMap& env, Guard& guard,
                       OutputRouter& router, PreemptionHandler& preemption,
                       const why::JobDir* job_dir) {
  const auth::RunSecret secret = auth::RunSecret::generate();
  std::optional<store::KvServer> store;
  start_store(plan, secret, store);
  const JobView job{job_dir, plan.hosts_store};
  // This node's segments only: under Slurm exec-rank removes each rank's own.
  if (plan.hosts_store) guard.watch_run_segments(plan.endpoints.run_id);

  std::vector<Child> children;
  SrunReport report;
  if (!plan.starter) {
    for (const plan::RankPlan& r : plan.ranks) {
      children.push_back(Child{str_cat("rank ", r.rank, " on ", r.host),
                               {plan.program, plan.command, child_env(env, r.env, secret, job),
                                r.binding.cpus},
                               r.rank,
                               {}});
    }
  } else {
    const plan::Starter& s = *plan.starter;
    Child starter{s.tool, {s.path, s.argv, child_env(env, s.env, secret, job), {}}, -1, {}};
    if (plan.mode == plan::Mode::kMpirun) {
      // mpirun kills the other ranks when one fails and exits with a failed rank's code; its
      // --tag-output's "[1,R]<stdout>:" becomes hvdrun's own tags (exec/mpirun_tags.h).
      router.set_label_style(OutputRouter::LabelStyle::kOpenMpi);
    } else {
      // srun's own exit code is the highest of its tasks'; its messages say which task failed.
      router.set_unlabeled_observer([&report](std::string_view line) { report.observe(line); });
      starter.explain_failure = [&report]() -> std::optional<Child::Explained> {
        const auto& f = report.first_failure();
        if (!f) return std::nullopt;
        return Child::Explained{f->exit_code, str_cat("rank ", f->tasks),
                                str_cat("rank ", f->tasks, " on ", f->node, " ", f->how),
                                single_task(f->tasks)};
      };
    }
    children.push_back(std::move(starter));
  }
  Supervisor supervisor(std::move(children), router,
                        std::chrono::seconds(plan.settings.launcher.kill_grace_seconds), &guard);
  supervisor.on_notice([&preemption](int sig) { return preemption.on_notice(sig); });
  supervisor.watch_idle(plan.size,
                        std::chrono::seconds(plan.settings.launcher.idle_timeout_seconds));
  // Destroyed before the supervisor, whose inbox it posts to.
  WhyService why_service(why_options(plan, env, secret, job_dir), supervisor.inbox());
  supervisor.on_quit([&why_service] { why_service.ask("SIGQUIT"); });
  supervisor.on_spawned([&why_service](const std::vector<std::pair<int, pid_t>>& pids) {
    why_service.set_pids(pids);
  });
  RunOutcome outcome = supervisor.run();
  outcome.notice = preemption.notice_received();
  outcome.notice_grace_overrun = supervisor.notice_grace_overrun();
  router.set_unlabeled_observer(nullptr);  // `report` ends here
  guard.end_run_segments();
  return outcome;
}

// Where `hvdrun why` finds this job, and the ranks' Python stacks land (why/job_dir.h). A
// folder that cannot be made (another user's /tmp/hvdrun-UID) costs `hvdrun why`, not the job.
std::optional<why::JobDir> make_job_dir(const plan::LaunchPlan& plan) {
  try {
    return why::JobDir::create(plan.command);
  } catch (const ConfigError& e) {
    std::fprintf(stderr, "hvdrun: warning: hvdrun why will not find this job: %s\n", e.what());
    return std::nullopt;
  }
}

}  // namespace

int launch(plan::LaunchPlan plan, const EnvMap& env) {
  plan::complete_for_launch(plan, env);
  if (plan.mode == plan::Mode::kLocal) {
    // Per rank: the read ends of its stdout, stderr and exec-status pipes, its connection to
    // the store, and with --output-filename its two log files.
    require_fds_for_ranks(plan.size, plan.output_dir.empty() ? 4 : 6);
  }
  require_timeline_folder(plan.settings.tunables);
  const TorchelasticErrors errors(env, plan.mode);
  plan.rank_error_dir = errors.rank_dir();
  block_forwarded_signals();  // before the store's thread starts: it inherits the mask
  Guard guard = Guard::start();  // before any thread, too (exec/guard.h)
  // One router for all attempts: each rank keeps one stream (and one log file) across restarts.
  OutputRouter router(plan.size, plan.settings.launcher.tag_output, plan.output_dir,
                      STDOUT_FILENO, STDERR_FILENO);
  const int max_restarts = plan.settings.launcher.max_restarts;
  const std::optional<why::JobDir> job_dir = make_job_dir(plan);
  RunOutcome outcome;
  std::optional<PreemptionHandler> preemption;
  int restart = 0;
  for (;; ++restart) {
    // The plan stays one value; each attempt runs a copy with its own run id and store.
    plan::LaunchPlan attempt = plan;
    plan::begin_attempt(attempt, restart);
    preemption.emplace(attempt.settings.launcher, local_checkpoint_file(attempt));
    outcome = run_attempt(attempt, env, guard, router, *preemption,
                          job_dir ? &*job_dir : nullptr);
    if (!should_restart(outcome, restart, max_restarts)) break;
    // The next attempt's ranks rewrite their timeline files: keep this attempt's trace.
    finish_timeline(plan.settings.tunables, plan.size, plan.timeline_tag, restart);
    router.mark_restart(restart_message(outcome, restart + 1, max_restarts));
  }
  router.finish(kFinalFlush);
  errors.finish(outcome, restart);
  guard.finish();
  finish_timeline(plan.settings.tunables, plan.size, plan.timeline_tag);
  // Requeues after a preemption notice (exec/requeue.h); never after a restartable failure,
  // since a notice ends the restarts.
  return preemption->finish(outcome.exit_code, outcome.notice_grace_overrun, env);
}

}  // namespace hvd::launcher::exec
