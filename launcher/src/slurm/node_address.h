// SPDX-License-Identifier: Apache-2.0
#pragma once
// The address other nodes use to reach a node of the job.

#include <string>

#include "config/env_map.h"

namespace hvd::launcher::slurm {

/// `node` itself when it resolves (the usual case: node names are host names); otherwise the
/// NodeAddr that `scontrol show node NODE` reports (clusters whose node names are aliases).
/// Falls back to `node` when neither works, so that the error surfaces where it is used.
/// Answers are kept for the life of the process (per PATH, SLURM_CONF and job node list), and
/// one scontrol run answers for up to 64 of the job's nodes (SLURM_JOB_NODELIST), so that
/// planning a step runs scontrol once, not once per lookup. Thread-safe.
std::string node_address(const std::string& node, const EnvMap& env);

}  // namespace hvd::launcher::slurm
