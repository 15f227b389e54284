// SPDX-License-Identifier: Apache-2.0
#pragma once
// LaunchPlan: what hvdrun will do, as a plain value. --dry-run prints it and the launcher carries
// it out, so the two can never disagree. Building it is pure: the facts about the machine and
// the endpoints come in as arguments.

#include <cstdint>
#include <string>
#include <vector>

#include "binding/binding_policy.h"
#include "binding/cpu_topology.h"
#include "binding/gpu_inventory.h"
#include "config/env_map.h"
#include "config/launch_config.h"

namespace hvd::launcher::plan {

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

struct RankPlan {
  int rank = 0;
  int local_rank = 0;
  std::string host;
  EnvMap env;  // what hvdrun sets on top of the inherited environment
  binding::RankBinding binding;
};

struct LaunchPlan {
  std::string mode = "local";
  std::string host;
  std::string program;               // the resolved path of command[0]
  std::vector<std::string> command;  // as given
  int size = 0;
  binding::BindingPlan binding;
  Endpoints endpoints;
  config::Settings settings;
  std::vector<std::string> sources;
  std::string output_dir;
  std::vector<RankPlan> ranks;
};

LaunchPlan build_local_plan(const config::LaunchConfig& cfg, const MachineFacts& facts,
                            const Endpoints& endpoints, const std::string& program);

/// A run id unique enough to tell runs apart on one machine (time, pid, randomness). A key
/// namespace only, not a secret: the store's authentication is the run secret (auth/).
std::string make_run_id();

}  // namespace hvd::launcher::plan
