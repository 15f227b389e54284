// SPDX-License-Identifier: Apache-2.0
#pragma once
// Reading `scontrol show node A,B,...`: one query for many nodes, since each scontrol run costs
// a process start and an RPC to slurmctld (about 12 ms on the test cluster), and hvdrun asks
// about the same few nodes several times while it plans one step.

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace hvd::launcher::slurm {

/// NodeAddr of each record in `scontrol show node` output (one record per node, starting with
/// `NodeName=`; with or without -o), by node name. A record without NodeAddr is left out.
std::map<std::string, std::string> parse_node_addrs(std::string_view scontrol_output);

/// The nodes to ask scontrol about when `node` is not known yet: `node` first, then the job's
/// other nodes in order that `known` does not hold, at most `limit` in all. Only `node` when it
/// is not one of `job_nodes` (it may be any text, so it is never joined with others).
std::vector<std::string> nodes_to_query(const std::string& node,
                                        const std::vector<std::string>& job_nodes,
                                        const std::map<std::string, std::string>& known,
                                        size_t limit);

}  // namespace hvd::launcher::slurm
