// SPDX-License-Identifier: Apache-2.0
#include "core/runtime.h"

#include <algorithm>
#include <iterator>
#include <string>

#include "backends/host_memory.h"
#include "hvd/error.h"

namespace hvd::core {
namespace {

// The global set: all ranks, with the channel and backend the bootstrap connected.
std::unique_ptr<ProcessSet> make_global_set(const bootstrap::WorldInfo& world,
                                            std::unique_ptr<control::Channel> channel,
                                            std::unique_ptr<backends::Backend> backend,
                                            const control::ControllerOptions& options,
                                            GpuLaneFactory gpu_lanes) {
  return std::make_unique<ProcessSet>(
      0, world, std::move(channel),
      backends::Lane{std::move(backend), std::make_unique<backends::HostMemory>()},
      std::move(gpu_lanes), options);
}

}  // namespace

Runtime::Runtime(bootstrap::WorldInfo world, std::unique_ptr<control::Channel> channel,
                 std::unique_ptr<backends::Backend> backend, RuntimeOptions options,
                 GpuLaneFactory gpu_lanes, SetCommsFactory sets)
    : world_(std::move(world)),
      options_(options),
      timeline_(options.timeline, world_.rank),
      sets_(make_global_set(world_, std::move(channel), std::move(backend), options.controller,
                            std::move(gpu_lanes)),
            world_, options.controller, std::move(sets)),
      global_(sets_.global()) {
  executors_timeline_ = timeline_.current();
  global_.executor.set_timeline(executors_timeline_);
  turns_ = std::make_shared<CycleTurns>([this] { run_cycle_or_fail(); },
                                        [this] { return more_work_.load() || queue_.has_fresh(); });
  thread_ = std::thread([this] { loop(); });
}

Runtime::~Runtime() {
  shutdown();
  sets_.clear();
}

// One tensor (every allreduce_async): the group's steps without its vectors.
std::shared_ptr<HandleState> Runtime::enqueue(control::Request request, BufferView input,
                                              BufferView output, int process_set) {
  auto handle = new_handle(turns_);
  if (!request.device.is_cpu()) turns_->close_caller_path();  // see enqueue_group()
  int set_rank = world_.rank;
  if (Status usable = sets_.set_rank_of(process_set, &set_rank); !usable.ok()) {
    handle->complete(std::move(usable));
    return handle;
  }
  request.rank = set_rank;
  const bool now = completes_at_submit(request.device);
  const Status added =
      queue_.add(TensorEntry{std::move(request), process_set, input, output, handle},
                 !now && !turns_->caller_ran_last());
  if (!added.ok()) {
    handle->complete(added);
  } else if (now) {
    handle->wait();  // its status stays in the handle for the caller's own wait()
  }
  return handle;
}

bool Runtime::completes_at_submit(Device device) const {
  // One rank communicates nothing, so the submitting thread runs the cycle at once, through
  // the same negotiation and executor as any other (the same copies, scaling and errors):
  // neither the loop nor a later wait() wakes for it, and a poll() finds it done. CUDA tensors
  // stay with the loop (enqueue_group() says why).
  return world_.size == 1 && device.is_cpu() && turns_->caller_path_open();
}

std::vector<std::shared_ptr<HandleState>> Runtime::enqueue_group(
    std::vector<control::Request> requests, const std::vector<BufferView>& inputs,
    const std::vector<BufferView>& outputs, int process_set) {
  HVD_CHECK(requests.size() == inputs.size() && inputs.size() == outputs.size(), "group of ",
            requests.size(), " requests with ", inputs.size(), " inputs");
  std::vector<std::shared_ptr<HandleState>> handles;
  handles.reserve(requests.size());
  bool now = true;  // see completes_at_submit()
  for (size_t i = 0; i < requests.size(); ++i) {
    now = now && completes_at_submit(requests[i].device);
    handles.push_back(new_handle(turns_));
    // CUDA tensors: from now on only the background loop runs cycles, rather than setting and
    // restoring the device around every caller's cycle. The GPU lane's stream and kernels
    // need its device current on the thread that runs them: the lane sets it on the loop's
    // thread when it is made (CudaStream), while a caller's thread may have any other device
    // current (a PyTorch rank's thread often does). Closing waits, once, for a caller's cycle
    // that runs now, so that none runs a GPU response after this tensor is queued.
    if (!requests[i].device.is_cpu()) turns_->close_caller_path();
  }
  int set_rank = world_.rank;
  if (const Status usable = sets_.set_rank_of(process_set, &set_rank); !usable.ok()) {
    HandleState::complete_all(handles, usable);
    return handles;
  }
  std::vector<TensorEntry> entries;
  entries.reserve(requests.size());
  for (size_t i = 0; i < requests.size(); ++i) {
    requests[i].rank = set_rank;
    entries.push_back(
        TensorEntry{std::move(requests[i]), process_set, inputs[i], outputs[i], handles[i]});
  }
  const Status added =
      queue_.add_group(std::move(entries), !now && !turns_->caller_ran_last());
  if (!added.ok()) {
    HandleState::complete_all(handles, added);
  } else if (now) {
    for (const auto& h : handles) h->wait();
  }
  return handles;
}

std::shared_ptr<HandleState> Runtime::add_process_set(const std::vector<int>& ranks) {
  control::Request r;
  r.name = str_cat("hvd.process_set.", set_changes_++);
  r.type = control::OpType::kAddProcessSet;
  r.dtype = DataType::kUInt8;
  r.shape = {0};
  r.splits.assign(ranks.begin(), ranks.end());
  // Sorted here, so that ranks given in another order still agree; everything else is checked
  // when the set is made, on every rank alike.
  std::sort(r.splits.begin(), r.splits.end());
  return enqueue(std::move(r), {}, {}, 0);
}

std::shared_ptr<HandleState> Runtime::remove_process_set(int id) {
  control::Request r;
  r.name = str_cat("hvd.process_set.", set_changes_++);
  r.type = control::OpType::kRemoveProcessSet;
  r.dtype = DataType::kUInt8;
  r.shape = {0};
  r.splits = {id};
  return enqueue(std::move(r), {}, {}, 0);
}

void Runtime::shutdown() {
  shutdown_requested_ = true;
  // The next cycle votes to stop, whichever thread runs it; the loop runs it if no caller does.
  queue_.wake();
  turns_->wake_loop();
  if (thread_.joinable()) thread_.join();
  // The loop ended after the stopping cycle, which closed the turns, and failed what was left:
  // every caller leaves drive_until() now, and none enters again.
  turns_->close();
  turns_->wait_for_no_drivers();
}

void Runtime::run_cycle_or_fail() noexcept {
  try {
    run_cycle();
    more_work_ = !stopped_ && work_in_flight();
  } catch (...) {
    failed_ = true;
    stopped_ = true;
    more_work_ = false;
    if (TimelineWriter* timeline = timeline_.current()) timeline->mark(kFatalMark);
    queue_.fail_all(Status::from_exception(std::current_exception()));
  }
  if (stopped_) {
    turns_->close();  // callers stop driving; the loop ends
    queue_.wake();
  }
}

void Runtime::run_cycle() {
  // A timeline started or stopped since the last cycle: the executors record into it now.
  TimelineWriter* const timeline = timeline_.current();
  if (timeline != executors_timeline_) {
    executors_timeline_ = timeline;
    for (auto& [id, set] : sets_.member_sets()) set->executor.set_timeline(timeline);
  }
  if (timeline) timeline->mark_cycle_start();
  // Sorted by set; the map stays empty (no allocation per cycle) while only set 0 is used.
  // The requests are the queued entries' own (FreshRequest), which only this thread removes.
  queue_.pop_fresh(popped_);
  global_fresh_.clear();
  std::map<int, std::vector<const control::Request*>> fresh;
  for (const FreshRequest& f : popped_) {
    (f.process_set == 0 ? global_fresh_ : fresh[f.process_set]).push_back(f.request);
  }
  popped_.clear();
  // The global set first: it may add or remove sets, on every rank in the same cycle.
  bool busy_elsewhere = !fresh.empty();
  for (const auto& [id, set] : sets_.member_sets()) {
    busy_elsewhere |= id != 0 && set->controller.in_flight() > 0;
  }
  global_.controller.set_busy_elsewhere(busy_elsewhere);
  const bool stop = run_set_cycle(global_, global_fresh_, shutdown_requested_.load());
  quiet_votes_.store(global_.controller.last_vote_set_work() ? 0 : quiet_votes_.load() + 1);
  if (stop) {
    stopped_ = true;  // every rank saw the same vote: none runs the other sets' cycles now
    return;
  }
  for (const auto& [id, requests] : fresh) {
    if (sets_.member_sets().count(id) > 0) continue;
    // Queued while the set was being removed: it no longer runs anything. Removing it failed
    // what was queued then (those requests are gone); this fails any queued since.
    queue_.fail_set(id,
                    Status::error(ErrorCode::kUsage, str_cat("process set ", id, " was removed")));
  }
  // In increasing id order on every rank: overlapping sets never wait on each other in a
  // circle. A set added just now runs its first cycle here on all its ranks alike.
  for (auto& [id, set] : sets_.member_sets()) {
    if (id == 0) continue;
    const auto it = fresh.find(id);
    const std::vector<const control::Request*> none;
    run_set_cycle(*set, it == fresh.end() ? none : it->second, false);
  }
}

void Runtime::record_negotiation_start(const std::vector<const control::Request*>& fresh) {
  // The cycle's new requests begin NEGOTIATE at once, as Horovod's do: one event on their group
  // (the same group every step of a training loop), each tensor's dtype and shape its args.
  if (executors_timeline_ && !fresh.empty()) {
    TimelineGroupBuilder negotiating(*executors_timeline_);
    for (const control::Request* r : fresh) negotiating.add(r->name, r->dtype, r->shape);
    executors_timeline_->begin_with_args(negotiating.finish(), timeline_phase::kNegotiate);
  }
}

void Runtime::complete_folded(ProcessSet& set, const control::Response& r,
                              const void* data) {
  if (executors_timeline_) {
    executors_timeline_->end(executors_timeline_->group(r.names), timeline_phase::kNegotiate);
  }
  // In the cycle's buffer, as any response's entries: no vector per folded tensor.
  taken_.clear();
  queue_.take(set.id, r.names, taken_);
  set.executor.complete_folded(r, taken_, data);
  taken_.clear();
}

bool Runtime::run_set_cycle(ProcessSet& set, const std::vector<const control::Request*>& fresh,
                            bool want_shutdown) {
  record_negotiation_start(fresh);
  // A small cached allreduce may ride on the vote (control/vote_fold.h); its data is read from
  // its entry, which stays queued until the vote says whether every rank folded it. `mine` is
  // the entry's own request (borrowed from the queue), which leads to the entry.
  const control::FoldInput fold = [&set](const control::Response& r,
                                         const control::Request& mine, void* dst) {
    return set.executor.fold_input(r, entry_of(mine).input, dst);
  };
  const control::CycleResult& result = set.controller.run_cycle(fresh, want_shutdown, fold);
  if (result.folded) complete_folded(set, *result.folded, result.folded_data);
  for (const control::Response& r : result.responses) {
    // The response's tensor list goes on the timeline once; its phases refer to it.
    TimelineGroup group;
    if (executors_timeline_) {
      group = executors_timeline_->group(r.names);
      executors_timeline_->end(group, timeline_phase::kNegotiate);
    }
    // A joined rank (hvd.join, global set only) runs the others' tensors with zeros.
    std::vector<TensorEntry>& entries = taken_;
    entries.clear();
    if (result.joined) {
      entries = join_zeros_.entries_for(r, queue_);
    } else {
      queue_.take(set.id, r.names, entries);
    }
    if (r.kind == control::Response::Kind::kError && set.id != 0) {
      // Negotiation names ranks by their place in the set: say which ranks those are.
      control::Response named = r;
      named.error = str_cat("process set ", set.id, " (ranks ", sets_.label(set.id),
                            "; ranks below are positions in it): ", r.error);
      set.executor.run(named, entries, group);
      entries.clear();
      continue;
    }
    if (r.kind == control::Response::Kind::kRun && (r.type == control::OpType::kAddProcessSet ||
                                                    r.type == control::OpType::kRemoveProcessSet)) {
      change_sets(r, entries);
    } else {
      set.executor.run(r, entries, group);
    }
    entries.clear();  // the handles go now; the memory stays for the next response
  }
  join_zeros_.release();
  return result.shutdown;
}

void Runtime::change_sets(const control::Response& r, std::vector<TensorEntry>& entries) {
  Status status;
  int id = -1;
  try {
    if (r.type == control::OpType::kAddProcessSet) {
      id = sets_.add(r.first_dims, executors_timeline_);
    } else {
      remove_set(r.first_dims);
    }
  } catch (const TimeoutError&) {
    throw;  // a peer that no longer answers: the run cannot go on (as for any collective)
  } catch (const BackendError&) {
    throw;
  } catch (...) {
    status = Status::from_exception(std::current_exception());
  }
  for (TensorEntry& e : entries) e.handle->process_set_id = id;
  complete_entries(entries, status);
}

void Runtime::remove_set(const std::vector<int64_t>& requested) {
  const int id = sets_.forget(requested);
  // New requests for it are refused from now on (the table above); those already queued fail.
  queue_.fail_set(id, Status::error(ErrorCode::kUsage, str_cat("process set ", id, " was removed")));
  sets_.erase_member_set(id);
}

}  // namespace hvd::core
