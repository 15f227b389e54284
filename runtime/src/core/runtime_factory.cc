// SPDX-License-Identifier: Apache-2.0
#include "core/runtime_factory.h"

#include "backends/registry.h"
#include "bootstrap/bootstrap.h"
#include "core/process_set_comms.h"
#include "core/ring_secret.h"
#include "core/transport_channel.h"
#include "core/why_wiring.h"
#include "hvd/env_keys.h"

namespace hvd::core {

RuntimeOptions runtime_options_from_env(const EnvMap& env) {
  RuntimeOptions o;
  o.controller.fusion_threshold_bytes = static_cast<size_t>(
      env_int64(env, env::kFusionThreshold, int64_t{128} << 20, 0, int64_t{1} << 40));
  o.controller.cache_capacity =
      static_cast<size_t>(env_int(env, env::kCacheCapacity, 1024, 0, 1 << 20));
  const double cycle_ms = env_double(env, env::kCycleTime, 1.0, 0.01, 60000.0);
  o.cycle_time = std::chrono::microseconds(static_cast<int64_t>(cycle_ms * 1000));
  o.controller.stall_check = !env_bool(env, env::kStallCheckDisable, false);
  o.controller.stall.warning_seconds = env_double(env, env::kStallCheckTime, 60.0, 0.001, 1e9);
  o.controller.stall.shutdown_seconds = env_double(env, env::kStallShutdownTime, 0.0, 0.0, 1e9);
  o.timeline.filename = env_string(env, env::kTimeline, "");
  // Horovod's DYNAMIC names no file: start_timeline() starts one at run time.
  if (o.timeline.filename == env::kTimelineDynamic) o.timeline.filename.clear();
  o.timeline.file_tag = env_string(env, env::kTimelineTag, "");
  o.timeline.mark_cycles = env_bool(env, env::kTimelineMarkCycles, false);
  return o;
}

GpuLaneFactory gpu_lane_factory(const EnvMap& env, control::Channel& channel,
                                const bootstrap::WorldInfo& world) {
  if (!backends::has_gpu_backend()) return {};
  const std::chrono::milliseconds timeout = backends::gpu_timeout(env);  // checked at init
  return [&channel, world, timeout](Device device) {
    const backends::Rank0Broadcast from_rank0 = [&channel](const std::string& bytes) {
      return channel.broadcast(bytes, 0);
    };
    return backends::make_gpu_lane(from_rank0, world, device, timeout);
  };
}

Instance make_instance(const EnvMap& env) {
  Instance instance;
  // Checked before the bootstrap, so that a bad HVD_BACKEND fails without waiting for peers.
  const std::string host_backend = backends::choose_host_backend(env);
  const bootstrap::BootstrapOptions boot_options = bootstrap::bootstrap_options_from_env(env);
  bootstrap::Bootstrapped b = bootstrap::bootstrap(env, boot_options);
  const auth::RunSecret secret = ring_secret(env, *b.store, b.world, boot_options.timeout);
  const std::string kind = backends::choose_ring_transport(env, b.world);
  // Control traffic gets connections of its own, so that a negotiation never queues behind
  // tensor bytes and the two never share buffers.
  const backends::ring::TransportSetup setup =
      backends::ring::transport_setup(env, b.world, boot_options.timeout);
  auto channel = std::make_unique<TransportChannel>(
      backends::make_ring_transport(kind, *b.store, b.world, "ctl", secret, setup));
  // With HVD_BACKEND=mpi only tensors go over MPI; the control channel above stays on the ring.
  auto backend =
      backends::make_host_backend(host_backend, kind, env, *b.store, b.world, secret, setup);
  control::Channel& control = *channel;  // owned by the runtime, as is the lane factory
  // Process sets connect later, without the store: they advertise the address the run's own
  // transports chose from it (the one this rank used to reach hvdrun's store).
  backends::ring::TransportSetup set_setup = setup;
  if (set_setup.address.empty()) set_setup.address = b.store->reachable_address();
  RuntimeOptions options = runtime_options_from_env(env);
  WhyWiring why = wire_why(b.world.rank, env, options);
  instance.runtime = std::make_unique<Runtime>(
      b.world, std::move(channel), std::move(backend), std::move(options),
      gpu_lane_factory(env, control, b.world),
      set_comms_factory(env, b.world, host_backend, kind, secret, set_setup));
  // Every transport is connected (the hierarchical backend's groups included) and the GPU lane
  // gets NCCL's id over the control channel: the store is needed only to keep a library alive.
  if (b.store->holds_session()) instance.store = std::move(b.store);
  why.runtime->store(instance.runtime.get());
  instance.why = diag::WhyResponderScope(std::move(why.responder));
  return instance;
}

}  // namespace hvd::core
