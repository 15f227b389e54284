// SPDX-License-Identifier: Apache-2.0
#pragma once
// `hvdrun why-node`: the verdict's hands on a Slurm node. hvdrun runs on one node and can
// neither signal nor see the ranks on the others, so for a verdict it starts one task of this
// per node of the step (`srun --overlap`, why/collector.h). Each finds the run's ranks on its
// node (why/rank_dir.h) and, for each:
//  - stopped or gone: answers for it in the run's store (condition "stopped"/"gone"), since a
//    stopped process cannot answer;
//  - otherwise sends it the why signal (hvd/why_protocol.h): libhvd answers itself; a rank
//    without libhvd dumps its Python stack into its folder, which this agent then sends.
// Bounded: about kDumpWait beyond the store's connect timeout; it never waits for a rank.
// It talks to the store with the run's secret from its environment, as the ranks do.

#include <chrono>
#include <map>
#include <string>

namespace hvd::launcher::why {

struct NodeAgentInput {
  std::string run_id;
  std::string node;                        // why::node_name()
  std::map<std::string, std::string> env;  // HVD_STORE_ADDR, HVD_STORE_PORT, HVD_RUN_SECRET
  std::chrono::milliseconds dump_wait{1500};
};

/// Does the above; returns how many ranks it found on this node. Throws BootstrapError or
/// TimeoutError when the store cannot be reached (the job is ending).
int answer_for_node(const NodeAgentInput& input);

}  // namespace hvd::launcher::why
