// SPDX-License-Identifier: Apache-2.0
#include "core/runtime.h"

#include "backends/host_memory.h"
#include "hvd/error.h"

namespace hvd::core {
namespace {

std::unique_ptr<TimelineWriter> make_timeline(TimelineOptions options, int rank) {
  if (options.filename.empty()) return nullptr;
  options.rank = rank;
  options.epoch = std::chrono::steady_clock::now();
  return std::make_unique<TimelineWriter>(options);
}

}  // namespace

Runtime::Runtime(bootstrap::WorldInfo world, std::unique_ptr<control::Channel> channel,
                 std::unique_ptr<backends::Backend> backend, RuntimeOptions options,
                 GpuLaneFactory gpu_lanes)
    : world_(std::move(world)),
      channel_(std::move(channel)),
      lanes_(backends::Lane{std::move(backend), std::make_unique<backends::HostMemory>()},
             std::move(gpu_lanes)),
      options_(options),
      timeline_(make_timeline(options.timeline, world_.rank)),
      controller_(*channel_, options.controller),
      executor_(lanes_, world_.rank, world_.size) {
  executor_.set_timeline(timeline_.get());
  thread_ = std::thread([this] { loop(); });
}

Runtime::~Runtime() { shutdown(); }

std::shared_ptr<HandleState> Runtime::enqueue(control::Request request, BufferView input,
                                              BufferView output) {
  std::vector<control::Request> one;
  one.push_back(std::move(request));
  return enqueue_group(std::move(one), {input}, {output}).front();
}

std::vector<std::shared_ptr<HandleState>> Runtime::enqueue_group(
    std::vector<control::Request> requests, const std::vector<BufferView>& inputs,
    const std::vector<BufferView>& outputs) {
  HVD_CHECK(requests.size() == inputs.size() && inputs.size() == outputs.size(), "group of ",
            requests.size(), " requests with ", inputs.size(), " inputs");
  std::vector<std::shared_ptr<HandleState>> handles;
  std::vector<TensorEntry> entries;
  for (size_t i = 0; i < requests.size(); ++i) {
    control::Request& request = requests[i];
    request.rank = world_.rank;
    handles.push_back(std::make_shared<HandleState>());
    entries.push_back(TensorEntry{request, inputs[i], outputs[i], handles.back()});
  }
  // Begin before queueing: once queued, the loop may end the phase at any moment.
  if (timeline_) {
    for (const control::Request& r : requests) {
      timeline_->begin(r.name, timeline_phase::kNegotiate,
                       TimelineTensorMeta::of_shape(r.dtype, r.shape));
    }
  }
  const Status added = queue_.add_group(std::move(entries));
  if (!added.ok()) {
    HandleState::complete_all(handles, added);
  }
  return handles;
}

void Runtime::shutdown() {
  shutdown_requested_ = true;
  queue_.wake();
  if (thread_.joinable()) thread_.join();
}

void Runtime::run_cycle() {
  if (timeline_) timeline_->mark_cycle_start();
  const control::CycleResult result =
      controller_.run_cycle(queue_.pop_fresh(), shutdown_requested_.load());
  for (const control::Response& r : result.responses) {
    if (timeline_) {
      timeline_->end(std::vector<std::string_view>(r.names.begin(), r.names.end()),
                     timeline_phase::kNegotiate);
    }
    executor_.run(r, result.joined ? join_zeros_.entries_for(r, queue_) : queue_.take(r.names));
  }
  join_zeros_.release();
  if (result.shutdown) stopped_ = true;
}

// Cycles are collective (each one votes over the cache bits), so a rank that starts one early
// only waits inside it for the others: ranks stay in lockstep whatever each one waits here.
void Runtime::wait_for_work(std::chrono::steady_clock::time_point cycle_end) {
  // Tensors this rank submitted that some other rank has not: that rank is about to submit
  // them, and its enqueue wakes its own loop, so start the next cycle at once to meet it
  // rather than sleep out a cycle.
  // After the shutdown cycle there is nothing left to wait for.
  // A joined rank (hvd.join) has nothing of its own in flight, but takes part in every
  // allreduce of the others: idling here would add up to a cycle time to each of theirs.
  if (stopped_ || controller_.in_flight() > 0 || controller_.joined()) return;
  // Idle: wait for the next enqueue, but at most until the cycle ends, so that the periodic
  // vote (stall checks, shutdown, other ranks' requests) keeps running. Tensors enqueued while
  // a cycle runs are all taken by the next one, which is how tensors submitted together meet
  // in one negotiation and fuse.
  queue_.wait_for_fresh(cycle_end);
}

void Runtime::loop() {
  try {
    while (!stopped_) {
      run_cycle();
      // Counted from the end of the cycle, which the ranks leave together (it is collective),
      // not from its start: a rank that entered late would otherwise wake early again every
      // cycle and spin in the next vote until the others arrive.
      wait_for_work(std::chrono::steady_clock::now() + options_.cycle_time);
    }
    queue_.fail_all(Status::error(ErrorCode::kUsage, "libhvd has been shut down"));
  } catch (...) {
    if (timeline_) timeline_->mark(kFatalMark);
    queue_.fail_all(Status::from_exception(std::current_exception()));
  }
  if (timeline_) {
    try {
      timeline_->close();
    } catch (const std::exception&) {
      // A timeline that could not be written must not turn a finished run into a failure.
    }
  }
}

}  // namespace hvd::core
