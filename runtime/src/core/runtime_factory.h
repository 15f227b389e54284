// SPDX-License-Identifier: Apache-2.0
#pragma once
// Building a Runtime from the environment: bootstrap, transports, backend, tunables.

#include <memory>

#include "bootstrap/bootstrap_method.h"
#include "core/runtime.h"
#include "env/env.h"
#include "diag/why_responder.h"

namespace hvd::core {

/// The tunables hvdrun passes (HOROVOD_FUSION_THRESHOLD, HOROVOD_CYCLE_TIME,
/// HOROVOD_CACHE_CAPACITY); ConfigError names a malformed one.
RuntimeOptions runtime_options_from_env(const EnvMap& env);

/// What makes the GPU lane when the first CUDA tensor comes (empty in a build without the GPU
/// backend); NCCL's id goes over `channel`'s broadcast, from the background loop, the only
/// thread that uses the channel. Reads HVD_NCCL_TIMEOUT now (ConfigError when malformed);
/// `channel` must outlive every call (the Runtime owns both).
GpuLaneFactory gpu_lane_factory(const EnvMap& env, control::Channel& channel,
                                const bootstrap::WorldInfo& world);

/// Everything one libhvd instance holds. Once the transports are connected nothing talks to the
/// store any more: hvdrun's is let go then (its connection closed), and `store` is kept only
/// when it owns the PMIx or MPI session that must outlive the runtime.
struct Instance {
  std::unique_ptr<bootstrap::KvStore> store;
  std::unique_ptr<Runtime> runtime;
  // Declared last, so destroyed first: it reads the runtime (hvdrun why).
  diag::WhyResponderScope why;
};

/// Collective: every rank calls it once. Throws hvd::Error subclasses.
Instance make_instance(const EnvMap& env);

}  // namespace hvd::core
