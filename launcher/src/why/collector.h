// SPDX-License-Identifier: Apache-2.0
#pragma once
// Collecting every rank's answer for a verdict, within a bounded time:
//  1. the old answers are deleted from the run's store;
//  2. each rank on this host gets the why signal (hvd/why_protocol.h); under Slurm a task on
//     each node of the step signals the ranks there (remote_argv);
//  3. answers are read from the store until all came or the deadline passed; a rank whose
//     process is stopped or gone is known at once from /proc and not waited for;
//  4. a rank that did not answer but dumped its Python stack (a program without libhvd) is
//     read from the job's dump folder.
// hvdrun talks to its own store as a client with the run's secret, as the ranks do.

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "auth/run_secret.h"
#include "why/rank_report.h"

namespace hvd::launcher::why {

struct CollectTarget {
  int rank = 0;
  pid_t pid = -1;  // -1: not a process of this host (its node's exec-rank signals it)
};

struct CollectOptions {
  std::string store_host;  // empty, or no secret: no store (the ranks cannot answer)
  uint16_t store_port = 0;
  std::optional<auth::RunSecret> secret;
  std::string why_dir;  // the job's dump folder (HVD_WHY_DIR); empty: none
  // Under Slurm, the ranks on other nodes: a command that makes each node's ranks answer
  // (`srun --overlap ... hvdrun why-node`, why/node_agent.h) with its environment (the run's
  // secret travels there, never in argv). Run while the answers are awaited, cut off at the
  // deadline. Empty: none.
  std::vector<std::string> remote_argv;
  std::map<std::string, std::string> remote_env;
  // Answers need a few milliseconds, or a native stack (eu-stack, bounded by 5 s in the rank,
  // and slower on a loaded node).
  std::chrono::milliseconds timeout{10000};
};

/// One report per target, in the targets' order. Never throws for a rank's fault: a rank that
/// sends nonsense is reported as silent.
std::vector<RankReport> collect(const std::vector<CollectTarget>& targets, const CollectOptions& o);

/// The Python stack a rank without libhvd dumped into `why_dir` (py.<rank>), emptied once read
/// as the ranks' responders do (runtime/src/diag/python_dump.h); empty when there is none.
std::string take_python_dump(const std::string& why_dir, int rank);

/// What /proc says about `pid`: stopped, gone, or (running, sleeping) silent.
RankCondition process_condition(pid_t pid);

}  // namespace hvd::launcher::why
