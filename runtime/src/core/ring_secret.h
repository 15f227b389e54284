// SPDX-License-Identifier: Apache-2.0
#pragma once
// The secret that the ring's TCP connections prove (transport/tcp/tcp_transport.h).

#include <chrono>

#include "auth/run_secret.h"
#include "bootstrap/kv_store.h"
#include "bootstrap/world_info.h"
#include "env/env.h"

namespace hvd::core {

/// HVD_RUN_SECRET when the environment has it (ranks started by hvdrun). Otherwise (PMIx or
/// MPI bootstraps, which have no hvdrun to draw one) rank 0 draws a fresh secret and shares it
/// through `store`, whose exchange for those bootstraps never leaves the job's own processes;
/// every rank takes that path or none, as they share one environment. Collective in that case.
/// Throws BootstrapError (a malformed HVD_RUN_SECRET, a bad shared value) or TimeoutError.
auth::RunSecret ring_secret(const EnvMap& env, bootstrap::KvStore& store,
                            const bootstrap::WorldInfo& world, std::chrono::milliseconds timeout);

}  // namespace hvd::core
