// SPDX-License-Identifier: Apache-2.0
#pragma once
// Process sets (Horovod's ProcessSet): subsets of the ranks that run collectives among
// themselves. Each set a rank belongs to has its own control channel, negotiation (controller,
// response cache, stall inspector, coordinated by the set's first rank), backend lanes and
// executor, exactly like the global set of all ranks (id 0); only the tensor queue is shared,
// keyed by set and name, so that names are per set. The background loop runs one cycle per set
// it belongs to, in increasing id order on every rank, which keeps the cycles of overlapping
// sets from waiting on each other in a circle.
//
// Adding and removing a set is collective over all ranks (as in Horovod's dynamic process
// sets): negotiated in the global set, so every rank changes its table at the same point of
// the same cycle and ids come out the same everywhere. Members then connect the set's own
// transports (core/set_rendezvous.h), or split the MPI communicator.

#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "backends/backend.h"
#include "bootstrap/world_info.h"
#include "control/channel.h"
#include "control/controller.h"
#include "core/executor.h"
#include "core/lane_selector.h"

namespace hvd::core {

/// What a member needs to take part in a set: its place in it, its channel, its host backend
/// and what makes its GPU lane (empty in a build without one).
struct SetComms {
  bootstrap::WorldInfo world;
  std::unique_ptr<control::Channel> channel;
  std::unique_ptr<backends::Backend> backend;
  std::function<GpuLaneFactory(control::Channel&, const bootstrap::WorldInfo&)> gpu;
};

/// Builds set `id` of `ranks` (sorted, distinct, global numbering). Collective over every rank
/// of the run, called from the background loop with the global channel `all` and the global
/// host backend `global` (the MPI backend splits its communicator); nothing on the ranks
/// outside the set. Throws hvd::Error subclasses, on every rank alike.
using SetCommsFactory = std::function<std::optional<SetComms>(
    int id, const std::vector<int>& ranks, control::Channel& all, backends::Backend& global)>;

/// This rank's part of one process set.
struct ProcessSet {
  ProcessSet(int set_id, bootstrap::WorldInfo set_world, std::unique_ptr<control::Channel> ch,
             backends::Lane host, GpuLaneFactory gpu, const control::ControllerOptions& options)
      : id(set_id),
        world(std::move(set_world)),
        channel(std::move(ch)),
        lanes(std::move(host), std::move(gpu)),
        controller(*channel, options),
        executor(lanes, world.rank, world.size) {}

  int id;
  bootstrap::WorldInfo world;  // rank and size within the set
  std::unique_ptr<control::Channel> channel;
  LaneSelector lanes;
  control::Controller controller;
  Executor executor;
};

/// The world of a set (core/process_set_comms.cc): rank = position of `rank` in `ranks` (-1 when not in it), size = its
/// size; local and cross ranks are counted among the set's ranks on this rank's host when
/// `hostnames` (every global rank's) is known, else the set is taken as one host.
bootstrap::WorldInfo set_world(const bootstrap::WorldInfo& all, const std::vector<int>& ranks);

}  // namespace hvd::core
