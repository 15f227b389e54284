// SPDX-License-Identifier: Apache-2.0
#include "core/runtime.h"

#include "hvd/error.h"

namespace hvd::core {

Runtime::Runtime(bootstrap::WorldInfo world, std::unique_ptr<control::Channel> channel,
                 std::unique_ptr<backends::Backend> backend, RuntimeOptions options)
    : world_(std::move(world)),
      channel_(std::move(channel)),
      backend_(std::move(backend)),
      options_(options),
      controller_(*channel_, options.controller),
      executor_(*backend_, world_.rank, world_.size) {
  thread_ = std::thread([this] { loop(); });
}

Runtime::~Runtime() { shutdown(); }

std::shared_ptr<HandleState> Runtime::enqueue(control::Request request, BufferView input,
                                              BufferView output) {
  auto handle = std::make_shared<HandleState>();
  request.rank = world_.rank;
  Status added = queue_.add(TensorEntry{std::move(request), input, output, handle});
  if (!added.ok()) handle->complete(added);
  return handle;
}

void Runtime::shutdown() {
  shutdown_requested_ = true;
  if (thread_.joinable()) thread_.join();
}

void Runtime::run_cycle() {
  const control::CycleResult result =
      controller_.run_cycle(queue_.pop_fresh(), shutdown_requested_.load());
  for (const control::Response& r : result.responses) executor_.run(r, queue_.take(r.names));
  if (result.shutdown) stopped_ = true;
}

void Runtime::loop() {
  try {
    while (!stopped_) {
      const auto start = std::chrono::steady_clock::now();
      run_cycle();
      // Sleep out the rest of the cycle, so that small tensors submitted together meet in one
      // negotiation (and fuse) instead of costing one round each.
      std::this_thread::sleep_until(start + options_.cycle_time);
    }
    queue_.fail_all(Status::error(ErrorCode::kUsage, "libhvd has been shut down"));
  } catch (...) {
    queue_.fail_all(Status::from_exception(std::current_exception()));
  }
}

}  // namespace hvd::core
