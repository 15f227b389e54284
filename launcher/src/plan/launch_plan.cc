// SPDX-License-Identifier: Apache-2.0
#include "plan/launch_plan.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <random>

#include "hvd/env_keys.h"
#include "hvd/str_cat.h"
#include "plan/rank_env.h"
#include "plan/rank_error_file.h"
#include "proc/checkpoint_file.h"

namespace hvd::launcher::plan {

const char* to_string(Mode mode) {
  switch (mode) {
    case Mode::kLocal:
      return "local";
    case Mode::kSlurm:
      return "slurm";
    case Mode::kMpirun:
      return "mpirun";
  }
  return "?";
}

LaunchPlan plan_from_request(Mode mode, const LaunchRequest& request, const std::string& host,
                             const std::string& program) {
  LaunchPlan plan;
  plan.mode = mode;
  plan.host = host;
  plan.program = program;
  plan.command = request.command;
  plan.size = request.num_proc;
  plan.settings = request.settings;
  plan.sources = request.sources;
  plan.output_dir = request.output_dir;
  return plan;
}

void attach_store(LaunchPlan& plan, const std::string& address, uint16_t port) {
  plan.endpoints.store_addr = address;
  plan.endpoints.store_port = port;
  RankExtras store;
  store.store_addr = address;
  store.store_port = port;
  if (plan.starter) {
    // srun passes the step's environment on to every task.
    store.run_id = plan.endpoints.run_id;
    put_extras(store, {}, plan.starter->env);
    return;
  }
  for (RankPlan& r : plan.ranks) put_extras(store, {}, r.env);
}

void begin_attempt(LaunchPlan& plan, int restart) {
  // Named after the attempt too: two ids drawn in the same second by the same hvdrun differ
  // only in 16 random bits.
  if (restart > 0) plan.endpoints.run_id = str_cat(make_run_id(), "-r", restart);
  EnvMap attempt = {{env::kRestartCount, std::to_string(restart)},
                    {env::kMaxRestarts, std::to_string(plan.settings.launcher.max_restarts)}};
  if (!plan.timeline_tag.empty()) attempt[env::kTimelineTag] = plan.timeline_tag;
  // Each srun task names its own file from these (plan::task_error_file).
  if (!plan.rank_error_dir.empty() && plan.mode == Mode::kSlurm) {
    attempt[env::kRankErrorDir] = plan.rank_error_dir;
  }
  if (plan.starter) {
    // srun passes them on to every task (exec-rank keeps its environment); mpirun exports them
    // by name (plan/mpirun_plan.cc). The starter's run id is attach_store()'s.
    for (const auto& [key, value] : attempt) plan.starter->env[key] = value;
    return;
  }
  // The local ranks' checkpoint-notice file is named after the attempt's run id, so that the
  // attempt's /dev/shm cleanup (by hvdrun, or its guard after a kill -9) takes it too: one named
  // after the first attempt outlived a restarted job that got a notice.
  // One file for every local rank (hvdrun creates it), its name drawn once per attempt.
  RankExtras files;
  files.run_id = plan.endpoints.run_id;
  files.checkpoint_file = proc::checkpoint_file_path(plan.endpoints.run_id);
  for (RankPlan& r : plan.ranks) {
    for (const auto& [key, value] : attempt) r.env[key] = value;
    if (!plan.rank_error_dir.empty()) {
      files.error_file = rank_error_file(plan.rank_error_dir, restart, r.rank);
    }
    put_extras(files, {}, r.env);
  }
}

std::string make_run_id() {
  std::random_device rd;
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  const auto secs = std::chrono::duration_cast<std::chrono::seconds>(now).count();
  char text[64];
  std::snprintf(text, sizeof(text), "%llx-%x-%04x", static_cast<unsigned long long>(secs),
                static_cast<unsigned>(getpid()), static_cast<unsigned>(rd() & 0xffff));
  return text;
}

}  // namespace hvd::launcher::plan
