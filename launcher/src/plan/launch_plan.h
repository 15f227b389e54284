// SPDX-License-Identifier: Apache-2.0
#pragma once
// LaunchPlan: what hvdrun will do, as a plain value, in every mode. --dry-run prints it
// (plan/plan_json.h) and exec::launch() carries it out (exec/launch.h), so the two can never
// disagree. The builders (plan/local_plan.h, plan/slurm_plan.h, plan/mpirun_plan.h) are pure:
// the facts about the machine, the job and the endpoints come in as arguments; plan/make_plan.h
// gathers them.
//
// The three modes:
//  - local: hvdrun starts every rank itself, with its own environment and CPU binding;
//  - slurm: hvdrun starts one srun step whose tasks run `hvdrun exec-rank`, which gives each
//    rank its identity on its node (the plan predicts it with the same function);
//  - mpirun: hvdrun starts Open MPI's mpirun, which gives every rank one environment.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "binding/binding_policy.h"
#include "binding/cpu_topology.h"
#include "binding/gpu_inventory.h"
#include "config/env_map.h"
#include "plan/launch_request.h"
#include "slurm/srun_command.h"

namespace hvd::launcher::plan {

/// "local", "slurm" or "mpirun", as --dry-run names them.
const char* to_string(Mode mode);

/// What hvdrun found out about the machine it runs on.
struct MachineFacts {
  std::string hostname;
  binding::CpuTopology topology;
  std::vector<binding::Gpu> gpus;
  EnvMap env;  // hvdrun's own environment, which the ranks inherit
  // hvdrun's Python packages (config::python_dirs), put in front of the ranks' PYTHONPATH.
  std::vector<std::string> python_dirs;
};

/// Addresses the ranks use to find each other.
struct Endpoints {
  std::string store_addr = "127.0.0.1";
  uint16_t store_port = 0;
  std::string master_addr = "127.0.0.1";
  uint16_t master_port = 0;
  std::string run_id;
  std::vector<uint16_t> tf_ports;  // one per rank with --tf-config (TF_CONFIG); else empty
};

/// One rank, as hvdrun starts it (local) or predicts it (slurm: what exec-rank will set).
struct RankPlan {
  int rank = 0;
  int local_rank = 0;
  std::string host;
  EnvMap env;  // what hvdrun sets on top of the inherited environment
  binding::RankBinding binding;
};

/// The one process that starts the ranks under Slurm (srun) or mpirun.
struct Starter {
  std::string tool;               // "srun" or "mpirun"
  std::string path;               // where it is; found before the launch
  std::vector<std::string> argv;  // its command line, argv[0] included
  EnvMap env;                     // what hvdrun adds to the environment it passes on
};

/// The Slurm side of a plan: where the step runs and with which profile.
struct SlurmStep {
  std::string profile;
  std::vector<std::string> profile_sources;
  std::string job_id;
  std::vector<std::string> job_nodes;
  slurm::StepShape shape;
  std::string hvdrun;  // the hvdrun srun runs on each node (exec-rank, why-node)
};

struct LaunchPlan {
  Mode mode = Mode::kLocal;
  std::string host;                  // where hvdrun runs
  std::string program;               // the resolved path of command[0]
  std::vector<std::string> command;  // as given
  int size = 0;
  config::Settings settings;
  std::vector<std::string> sources;  // where the settings came from
  std::string output_dir;            // --output-filename; empty: none
  binding::BindingPlan binding;      // local mode's CPU and GPU binding
  Endpoints endpoints;
  std::vector<RankPlan> ranks;       // local: every rank; slurm: predicted; mpirun: none
  std::optional<Starter> starter;    // slurm and mpirun
  std::optional<SlurmStep> slurm;    // slurm only
  // The address hvdrun's rendezvous store listens on; empty: no store (mpirun, where libhvd
  // meets through MPI). Slurm's is found just before the launch (slurm/store_address.h).
  bool hosts_store = false;
  std::string store_bind_address;
  // HVD_TIMELINE_TAG, drawn once per job when there is a timeline (make_plan): part of the rank
  // files' names, so that another user cannot make one first (timeline/timeline_merge.h).
  std::string timeline_tag;
  // hvdrun's folder for the ranks' own TORCHELASTIC_ERROR_FILEs (plan/rank_error_file.h), set by
  // exec::launch when the user set the variable; empty: the ranks' variable is left alone.
  std::string rank_error_dir;
};

/// The fields every plan takes from its request alike: mode, host, program, command, size,
/// settings and their sources, output folder.
LaunchPlan plan_from_request(Mode mode, const LaunchRequest& request, const std::string& host,
                             const std::string& program);

/// Puts the store's address and port, once it listens, where the ranks will read them: every
/// rank's variables in local mode, the step's in Slurm (with the run id, which --dry-run leaves
/// out there because each launch makes a new one).
void attach_store(LaunchPlan& plan, const std::string& address, uint16_t port);

/// Makes `plan` the plan of attempt `restart` (0: the first start, 1: the first restart, ...):
/// every rank gets the restart count (TORCHELASTIC_RESTART_COUNT, and the limit, from
/// settings.launcher.max_restarts), and a restart gets a new run id, so that nothing of the
/// failed attempt (store keys, /dev/shm segments) can be taken for the new one's. The new store
/// and secret are exec::launch's (attach_store() then tells the plan the store's port).
void begin_attempt(LaunchPlan& plan, int restart);

/// A run id unique enough to tell runs apart on one machine (time, pid, randomness). A key
/// namespace only, not a secret: the store's authentication is the run secret (auth/).
std::string make_run_id();

}  // namespace hvd::launcher::plan
