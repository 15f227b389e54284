// SPDX-License-Identifier: Apache-2.0
#pragma once
// Runtime: owns the parts of one libhvd instance (after Horovod's global state, but passed
// in, not global) and runs its cycles: every cycle takes the fresh requests, runs one
// controller cycle, and executes what the cycle planned. A caller that waits on a handle runs
// the cycles itself; the background loop runs them when nobody waits (CycleTurns). Errors
// inside a cycle are caught, every pending handle fails with them, and later calls get the
// same error (gloo's pattern); nothing under src/ exits the process.

#include <atomic>
#include <chrono>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "backends/backend.h"
#include "bootstrap/world_info.h"
#include "control/channel.h"
#include "control/controller.h"
#include "core/active_timeline.h"
#include "core/cycle_turns.h"
#include "core/executor.h"
#include "core/join_zeros.h"
#include "core/lane_selector.h"
#include "core/process_set.h"
#include "core/process_set_table.h"
#include "core/tensor_queue.h"
#include "timeline/timeline.h"

namespace hvd::core {

struct RuntimeOptions {
  control::ControllerOptions controller;
  /// The longest an idle background loop waits between two cycles (HOROVOD_CYCLE_TIME). An
  /// enqueue ends the wait at once, unless a waiting caller ran the latest cycle (its wait()
  /// most likely comes next); tensors enqueued while a cycle runs meet in the next one.
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
  /// `sets` builds the communication of new process sets; empty: add_process_set() fails.
  Runtime(bootstrap::WorldInfo world, std::unique_ptr<control::Channel> channel,
          std::unique_ptr<backends::Backend> backend, RuntimeOptions options,
          GpuLaneFactory gpu_lanes = {}, SetCommsFactory sets = {});
  /// Shuts down (collectively, like hvd.shutdown()) if that has not happened yet.
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  const bootstrap::WorldInfo& world() const { return world_; }

  /// Queues a collective among the ranks of `process_set` (0: all); the handle completes when
  /// it ran or failed. The request's rank is filled in. Thread-safe.
  std::shared_ptr<HandleState> enqueue(control::Request request, BufferView input,
                                       BufferView output, int process_set = 0);
  /// Queues several collectives at once (a grouped allreduce); one handle per tensor.
  std::vector<std::shared_ptr<HandleState>> enqueue_group(std::vector<control::Request> requests,
                                                          const std::vector<BufferView>& inputs,
                                                          const std::vector<BufferView>& outputs,
                                                          int process_set = 0);
  /// Collective over all ranks, which pass the same ranks (in any order): creates the process
  /// set of `ranks`; the handle completes with its id in HandleState::process_set_id. Fails on
  /// every rank alike for ranks outside the world, repeated ranks, no ranks, or ranks that
  /// already form a set.
  std::shared_ptr<HandleState> add_process_set(const std::vector<int>& ranks);
  /// Collective over all ranks: removes set `id` (not 0); its tensors still in flight fail.
  std::shared_ptr<HandleState> remove_process_set(int id);
  /// The global ranks of set `id`, in set rank order; nothing when there is no such set.
  std::optional<std::vector<int>> process_set_ranks(int id) const { return sets_.ranks(id); }
  /// This rank's place in set `id`; -1 when it is not a member or there is no such set.
  int process_set_rank(int id) const { return sets_.rank(id); }
  /// Every set's id, 0 first.
  std::vector<int> process_set_ids() const { return sets_.ids(); }
  /// Starts writing this rank's timeline (timeline_rank_path(path, rank)) with its epoch now:
  /// call it on every rank at the same moment (hvd::start_timeline() does, after a barrier).
  /// Error when a timeline is being written already, or the file cannot be created.
  Status start_timeline(const std::string& path, bool mark_cycles) {
    return timeline_.start(path, mark_cycles);
  }
  /// Closes this rank's timeline and says where it was (its base path), and whether
  /// start_timeline() started it (then the caller merges the ranks' files); error when none
  /// is being written, or writing failed.
  Status stop_timeline(std::string* base, bool* from_api) { return timeline_.stop(base, from_api); }
  /// HVD_TIMELINE_TAG, the same on every rank: part of each rank file's name.
  const std::string& timeline_file_tag() const { return options_.timeline.file_tag; }
  /// Asks every rank to stop, waits for the loop to end, and fails what is still pending.
  void shutdown();
  /// This rank's queue now, for `hvdrun why` (diag/why_responder.h). Any thread.
  diag::QueueView queue_view() const { return queue_.view(); }
  /// Who runs the cycles (its counters tell how many each side ran).
  const CycleTurns& turns() const { return *turns_; }

 private:
  void loop();
  // One cycle, on whichever thread holds the turn; a failure fails every pending handle, as
  // the loop always did, and stops the runtime.
  void run_cycle_or_fail() noexcept;
  void run_cycle();
  // Tensors of this rank wait for other ranks, or it has joined: cycle again without waiting.
  bool work_in_flight() const;
  // One cycle of `set`'s negotiation with its fresh requests (borrowed from the queue's
  // entries: control::Controller::run_cycle()), then what it planned.
  bool run_set_cycle(ProcessSet& set, const std::vector<const control::Request*>& fresh,
                     bool want_shutdown);
  // The cycle's fresh requests begin their NEGOTIATE phase on the timeline.
  void record_negotiation_start(const std::vector<const control::Request*>& fresh);
  // A small allreduce that rode on the vote (control/vote_fold.h): its entries complete with
  // the folded result `data`.
  void complete_folded(ProcessSet& set, const control::Response& r,
                       const void* data);
  // A response of the global set that adds or removes a process set (on every rank alike).
  void change_sets(const control::Response& r, std::vector<TensorEntry>& entries);
  // A tensor on `device` runs its cycle on the submitting thread, before enqueue returns.
  bool completes_at_submit(Device device) const;
  // Removes the set named by a negotiated kRemoveProcessSet, failing what is queued for it.
  void remove_set(const std::vector<int64_t>& id);
  // The loop between two cycles (runtime_loop.cc): returns at once with work in flight, a
  // cycle time after an enqueue, or when the periodic vote is due; sleeps while callers run the
  // cycles.
  void wait_for_turn();
  // After an enqueue woke the idle loop: the rest of the cycle time, for the burst's others.
  void gather_burst();
  // How long after the latest cycle the loop's next periodic vote is due: the cycle time,
  // longer while no rank had work in another process set.
  std::chrono::microseconds vote_period() const;

  bootstrap::WorldInfo world_;
  RuntimeOptions options_;
  TensorQueue queue_;
  ActiveTimeline timeline_;  // the timeline being written, if any; any thread
  // executors_timeline_, join_zeros_, popped_, global_fresh_ and taken_
  // are cycle state: only the thread that holds the turn (CycleTurns) uses them.
  TimelineWriter* executors_timeline_ = nullptr;  // what the executors record into
  ProcessSetTable sets_;  // the rank table is thread-safe; the member sets are cycle state
  ProcessSet& global_;    // sets_.global()
  std::atomic<uint64_t> set_changes_{0};  // names the add/remove requests
  JoinZeros join_zeros_;                  // while this rank has joined (hvd.join); global set only
  // Cycle buffers, emptied after each use and kept for their memory: the requests popped from
  // the queue, the global set's among them, and the entries of the response that runs.
  std::vector<FreshRequest> popped_;
  std::vector<const control::Request*> global_fresh_;
  std::vector<TensorEntry> taken_;
  std::atomic<bool> shutdown_requested_{false};
  std::atomic<bool> stopped_{false};
  std::atomic<bool> failed_{false};      // a cycle threw: the queue holds its error
  std::atomic<bool> more_work_{false};   // work_in_flight() after the latest cycle
  std::atomic<uint64_t> quiet_votes_{0};  // global votes without work in other sets, in a row
  // Shared with every handle, whose wait() runs cycles through it; closed before the runtime
  // goes, so that a handle that outlives it never calls in.
  std::shared_ptr<CycleTurns> turns_;
  std::thread thread_;
};

}  // namespace hvd::core
