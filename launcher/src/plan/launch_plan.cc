// SPDX-License-Identifier: Apache-2.0
#include "plan/launch_plan.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <random>

#include "hvd/env_keys.h"

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

void attach_store(LaunchPlan& plan, const std::string& address, uint16_t port) {
  plan.endpoints.store_addr = address;
  plan.endpoints.store_port = port;
  if (plan.starter) {
    EnvMap& env = plan.starter->env;
    env[env::kStoreAddr] = address;
    env[env::kStorePort] = std::to_string(port);
    env[env::kRunId] = plan.endpoints.run_id;
    return;
  }
  for (RankPlan& r : plan.ranks) {
    r.env[env::kStoreAddr] = address;
    r.env[env::kStorePort] = std::to_string(port);
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
