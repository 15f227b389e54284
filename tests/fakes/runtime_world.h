// SPDX-License-Identifier: Apache-2.0
#pragma once
// Whole runtimes on threads: spawn_runtimes() runs `body` as `size` ranks, each with its own
// core::Runtime over a FakeChannel and a FakeBackend (tests/fakes), and rethrows the first
// failure; request() builds the control::Request the public API would enqueue.

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bootstrap/world_info.h"
#include "control/message.h"
#include "core/runtime.h"
#include "fakes/fake_backend.h"
#include "fakes/fake_channel.h"
#include "fakes/thread_world.h"

namespace hvd::test {

inline void spawn_runtimes(int size, const core::RuntimeOptions& options,
                           const std::function<void(int, core::Runtime&)>& body) {
  FakeChannelHub channel_hub(size), backend_hub(size);
  spawn(size, [&](int rank) {
    bootstrap::WorldInfo world;
    world.rank = rank;
    world.size = size;
    core::Runtime runtime(world, std::make_unique<FakeChannel>(channel_hub, rank),
                          std::make_unique<FakeBackend>(backend_hub, rank), options);
    body(rank, runtime);
  });
}

inline control::Request request(const std::string& name, control::OpType type, DataType dtype,
                                std::vector<int64_t> shape, ReduceOp op = ReduceOp::kSum) {
  control::Request r;
  r.name = name;
  r.type = type;
  r.dtype = dtype;
  r.shape = std::move(shape);
  r.op = op;
  return r;
}

}  // namespace hvd::test
