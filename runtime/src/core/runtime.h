// SPDX-License-Identifier: Apache-2.0
#pragma once
// Runtime: owns the parts of one libhvd instance (after Horovod's global state, but passed
// in, not global) and runs the background loop: every cycle it takes the fresh requests,
// runs one controller cycle, and executes what the cycle planned. Errors inside the loop are
// caught, every pending handle fails with them, and later calls get the same error (gloo's
// pattern); nothing under src/ exits the process.

#include <atomic>
#include <chrono>
#include <exception>
#include <memory>
#include <thread>

#include "backends/backend.h"
#include "bootstrap/world_info.h"
#include "control/channel.h"
#include "control/controller.h"
#include "core/executor.h"
#include "core/join_zeros.h"
#include "core/lane_selector.h"
#include "core/tensor_queue.h"
#include "core/timeline.h"

namespace hvd::core {

struct RuntimeOptions {
  control::ControllerOptions controller;
  /// The longest an idle background loop waits between two cycles (HOROVOD_CYCLE_TIME). An
  /// enqueue ends the wait at once; tensors enqueued while a cycle runs meet in the next one.
  std::chrono::microseconds cycle_time{1000};
  /// Off when timeline.filename is empty. The epoch is taken when the Runtime starts, right
  /// after the transports connected (a moment every rank passes together).
  TimelineOptions timeline;
};

class Runtime {
 public:
  /// Takes ownership of the channel and the host backend; starts the background thread.
  /// `gpu_lanes` makes the lane for CUDA tensors when the first one comes; empty in a build
  /// without the GPU backend (CUDA tensors then fail with a message that says how to rebuild).
  Runtime(bootstrap::WorldInfo world, std::unique_ptr<control::Channel> channel,
          std::unique_ptr<backends::Backend> backend, RuntimeOptions options,
          GpuLaneFactory gpu_lanes = {});
  /// Shuts down (collectively, like hvd.shutdown()) if that has not happened yet.
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  const bootstrap::WorldInfo& world() const { return world_; }

  /// Queues a collective; the handle completes when it ran or failed. Thread-safe.
  std::shared_ptr<HandleState> enqueue(control::Request request, BufferView input,
                                       BufferView output);
  /// Queues several collectives at once (a grouped allreduce); one handle per tensor.
  std::vector<std::shared_ptr<HandleState>> enqueue_group(std::vector<control::Request> requests,
                                                          const std::vector<BufferView>& inputs,
                                                          const std::vector<BufferView>& outputs);
  /// Asks every rank to stop, waits for the loop to end, and fails what is still pending.
  void shutdown();

 private:
  void loop();
  void run_cycle();
  // Between two cycles: returns at once, on an enqueue, or at cycle_end (see runtime.cc).
  void wait_for_work(std::chrono::steady_clock::time_point cycle_end);

  bootstrap::WorldInfo world_;
  std::unique_ptr<control::Channel> channel_;
  LaneSelector lanes_;
  RuntimeOptions options_;
  TensorQueue queue_;
  std::unique_ptr<TimelineWriter> timeline_;
  control::Controller controller_;
  Executor executor_;
  JoinZeros join_zeros_;  // while this rank has joined (hvd.join)
  std::atomic<bool> shutdown_requested_{false};
  std::atomic<bool> stopped_{false};
  std::thread thread_;
};

}  // namespace hvd::core
