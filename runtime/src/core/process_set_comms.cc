// SPDX-License-Identifier: Apache-2.0
#include "core/process_set_comms.h"

#include <exception>
#include <utility>

#include "backends/registry.h"
#include "backends/ring/ring_backend.h"
#include "core/runtime_factory.h"
#include "core/set_rendezvous.h"
#include "core/transport_channel.h"
#include "hvd/error.h"
#include "hvd/str_cat.h"

namespace hvd::core {

SetCommsFactory set_comms_factory(const EnvMap& env, const bootstrap::WorldInfo& world,
                                  const std::string& host_backend, const std::string& ring_kind,
                                  const auth::RunSecret& secret,
                                  const backends::ring::TransportSetup& setup) {
  std::function<GpuLaneFactory(control::Channel&, const bootstrap::WorldInfo&)> gpu;
  if (backends::has_gpu_backend()) {
    gpu = [env](control::Channel& channel, const bootstrap::WorldInfo& set) {
      return gpu_lane_factory(env, channel, set);
    };
  }
  return [world, host_backend, ring_kind, secret, setup, gpu](
             int id, const std::vector<int>& ranks, control::Channel& all,
             backends::Backend& global) -> std::optional<SetComms> {
    SetComms comms;
    comms.world = set_world(world, ranks);
    comms.gpu = gpu;
    const bool member = comms.world.rank >= 0;
    // MPI_Comm_split is collective over the whole run: every rank, member or not, calls it.
    if (host_backend == "mpi") comms.backend = backends::split_mpi_backend(global, ranks);
    SetRendezvousStore store(all);
    std::string error;
    if (member) {
      const std::string scope = str_cat("set", id);
      try {
        comms.channel = std::make_unique<TransportChannel>(backends::ring::make_transport(
            ring_kind, store, comms.world.rank, comms.world.size, scope + "/ctl", secret, setup));
        if (!comms.backend) {
          comms.backend = std::make_unique<backends::ring::RingBackend>(
              backends::ring::make_transport(ring_kind, store, comms.world.rank,
                                             comms.world.size, scope + "/data", secret, setup),
              ring_kind);
        }
      } catch (const std::exception& e) {
        error = e.what();
      }
    }
    // Every rank learns whether every member got connected, so that all fail alike.
    if (const std::string failed = store.finish(error); !failed.empty()) {
      throw BootstrapError(str_cat("add_process_set: connecting process set ", id, " failed on ",
                                   failed));
    }
    if (!member) return std::nullopt;
    return comms;
  };
}

}  // namespace hvd::core
