// SPDX-License-Identifier: Apache-2.0
#pragma once
// TensorQueue: where the API threads leave work for the background loop. Each entry is a
// tensor with its request and the handle its caller waits on. Thread-safe.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "common/buffer.h"
#include "control/message.h"
#include "core/cycle_turns.h"
#include "diag/rank_snapshot.h"
#include "hvd/status.h"

namespace hvd::core {

struct TensorEntry;

/// What a caller waits on. Completed exactly once, by a cycle (the background loop's or a
/// waiting caller's) or when the runtime stops.
class HandleState {
 public:
  HandleState() = default;
  /// `turns`: the runtime's, so that wait() runs the cycles itself (see CycleTurns).
  explicit HandleState(std::shared_ptr<CycleTurns> turns) : turns_(std::move(turns)) {}
  void complete(Status status);
  /// Completes all of `handles` with `status`, marking every one done before waking any
  /// waiter: a caller that waits on them in turn then wakes once, not once per handle (a
  /// fused response completes hundreds at a time, and each wake is a context switch).
  static void complete_all(const std::vector<std::shared_ptr<HandleState>>& handles,
                           const Status& status);
  /// Blocks until complete, running this rank's cycles meanwhile when no other thread does;
  /// returns the status.
  Status wait();
  bool done() const;
  /// Allgather: the runtime allocates the output, since its size is known only after
  /// negotiation. Valid once complete.
  std::vector<char> output;
  std::vector<int64_t> output_shape;
  std::vector<int64_t> received_splits;  // alltoallv: rows from each rank
  int process_set_id = -1;               // add_process_set: the new set's id
  int last_joined_rank = -1;             // join: the rank that joined last

 private:
  // complete() in two steps, so that complete_all() can mark every handle before waking any.
  friend void complete_entries(const std::vector<TensorEntry>& entries, const Status& status);
  void mark_done(const Status& status);
  void wake_waiters() { cv_.notify_all(); }

  mutable std::mutex mutex_;
  std::condition_variable cv_;
  bool done_ = false;
  std::atomic<bool> done_flag_{false};  // done_, readable without the mutex (spinning waiters)
  Status status_;
  std::shared_ptr<CycleTurns> turns_;
};

/// A new handle, allocated from this thread's pool of handles (core/handle_pool.h).
std::shared_ptr<HandleState> new_handle(std::shared_ptr<CycleTurns> turns = nullptr);

struct TensorEntry {
  control::Request request;
  int process_set = 0;  // the set whose ranks run it (0: all ranks); names are per set
  BufferView input;
  BufferView output;  // allreduce/broadcast/reducescatter/alltoall: the caller's; may equal input
  std::shared_ptr<HandleState> handle;
  // Set by the queue when it takes the entry in, for diagnostics (TensorQueue::view()).
  uint64_t seq = 0;
  std::chrono::steady_clock::time_point queued_at{};
};

// A queued entry begins with its request, so that the request the controller borrows
// (FreshRequest::request) leads back to its entry without a lookup: see entry_of().
static_assert(std::is_standard_layout_v<TensorEntry> && offsetof(TensorEntry, request) == 0,
              "TensorEntry must begin with its request (entry_of)");

/// The queued entry whose own request `r` is: `r` must be a FreshRequest::request (a borrowed
/// request, control::Controller::run_cycle()), whose entry is still queued. A standard-layout
/// struct and its first member share their address.
inline const TensorEntry& entry_of(const control::Request& r) {
  return *reinterpret_cast<const TensorEntry*>(&r);
}

/// HandleState::complete_all() over the handles of `entries` (without collecting them first:
/// it runs for every response the executor finishes).
void complete_entries(const std::vector<TensorEntry>& entries, const Status& status);

/// A request the loop has not seen yet, and the process set it belongs to. It points at the
/// queued entry's own request, which stays put until the entry is taken or failed: the
/// controller borrows it (control::Controller::run_cycle()) instead of a copy per tensor.
struct FreshRequest {
  int process_set = 0;
  const control::Request* request = nullptr;
};

class TensorQueue {
 public:
  /// Queues `entry`. Returns an error Status (and queues nothing) when a tensor of the same
  /// name is still in flight in the same process set, or after fail_all(). `wake`: as for
  /// add_group().
  Status add(TensorEntry&& entry, bool wake = true);
  /// Queues all of `entries` at once, so that one cycle sees the whole group (grouped
  /// allreduce). All or nothing: an error queues none of them. `wake`: end the loop's
  /// wait_for_fresh() now (false: the waiting caller is expected to run the next cycle itself).
  Status add_group(std::vector<TensorEntry> entries, bool wake = true);
  /// The requests added since the last call, in the order they were added. Each points into
  /// its entry: valid until the entry is taken, or failed by fail_all() or fail_set().
  std::vector<FreshRequest> pop_fresh();
  /// pop_fresh() into `out` (cleared first), whose memory the queue keeps for the next ones:
  /// the loop and the queue trade the same two buffers every cycle instead of growing new ones.
  void pop_fresh(std::vector<FreshRequest>& out);
  /// The background loop's idle wait: returns when a request has been added since the last
  /// pop_fresh() (at once if one already was), when wake() is called, or at `deadline`,
  /// whichever comes first. add() and add_group() end the wait, so that a lone tensor does not
  /// sit out the rest of a cycle.
  void wait_for_fresh(std::chrono::steady_clock::time_point deadline);
  /// Ends the current or next wait_for_fresh() early (used by shutdown).
  void wake();
  /// Requests were added since the last pop_fresh() (or wake() was called).
  bool has_fresh() const { return fresh_flag_.load(std::memory_order_acquire); }
  /// Removes and returns the entries of `names` in `process_set` (in that order); a name
  /// without an entry is a bug in the caller.
  std::vector<TensorEntry> take(int process_set, const std::vector<std::string>& names);
  /// take(), appending to `out` (a buffer the caller reuses every cycle).
  void take(int process_set, const std::vector<std::string>& names, std::vector<TensorEntry>& out);
  /// Removes and returns the entry of `name` in `process_set`, or nothing when this rank has
  /// none (a joined rank's view of a tensor the others submitted).
  std::optional<TensorEntry> take_if_queued(int process_set, const std::string& name);
  /// Completes every entry with `status` and refuses later adds with it.
  void fail_all(const Status& status);
  /// Completes the entries of `process_set` with `status` (the set was removed); later adds to
  /// it are the caller's to refuse.
  void fail_set(int process_set, const Status& status);
  size_t size() const;
  /// What is queued now and what ran last, for `hvdrun why` (diag/rank_snapshot.h). Any thread.
  diag::QueueView view() const;

 private:
  // add_group() with mutex_ held: checks and queues, or returns the error.
  Status add_locked(std::vector<TensorEntry>& entries);
  // With mutex_ held: queues `entry` (moved from) and returns true, or returns false and leaves
  // it as it was when its name is in flight in its set.
  bool insert_locked(TensorEntry& entry);
  // With mutex_ held, for view(): numbers a newly queued entry and notes when; notes the
  // last of `count` entries taken to run (tensor_queue_view.cc).
  void stamp_locked(TensorEntry& entry);
  void note_taken_locked(const TensorEntry& last, size_t count);
  // After the lock is released: ends the loop's wait_for_fresh() when `wake`.
  void notify_fresh(bool wake) {
    if (wake) fresh_cv_.notify_one();
  }
  // With mutex_ held, after fresh_ or woken_ changed: recomputes fresh_flag_ from them.
  void publish_fresh_locked() {
    fresh_flag_.store(!fresh_.empty() || woken_, std::memory_order_release);
  }

  mutable std::mutex mutex_;
  std::condition_variable fresh_cv_;     // signalled when fresh_ gains requests, or by wake()
  bool woken_ = false;                   // wake() was called since the last wait_for_fresh()
  std::atomic<bool> fresh_flag_{false};  // !fresh_.empty() || woken_, for spinning without mutex_
  // The name is the entry's own (request.name of the mapped TensorEntry), not a copy: an entry
  // costs no second string. insert_locked() points it there once the entry is in its node,
  // whose address never changes; it is `mutable` for that one assignment (same text, same hash).
  // Take an entry out of the table (extract) before moving it: its key views its name.
  struct Key {
    int process_set;
    mutable std::string_view name;
    bool operator==(const Key& o) const { return process_set == o.process_set && name == o.name; }
  };
  struct KeyHash {
    size_t operator()(const Key& k) const {
      return std::hash<std::string_view>{}(k.name) ^
             (static_cast<size_t>(k.process_set) * 0x9e3779b97f4a7c15ull);
    }
  };
  using Entries = std::unordered_map<Key, TensorEntry, KeyHash>;
  Entries entries_;
  // The nodes of taken entries (holding moved-from ones), for the next adds: a step queues as
  // many tensors as the one before, so that steady state allocates no table node.
  std::vector<Entries::node_type> spare_nodes_;
  std::vector<FreshRequest> fresh_;
  Status closed_;  // not ok once fail_all() ran
  // Diagnostics (view()), under mutex_: counts, and the latest entry taken to run.
  uint64_t submitted_ = 0;
  uint64_t taken_count_ = 0;
  std::chrono::steady_clock::time_point last_change_ = std::chrono::steady_clock::now();
  std::optional<diag::OpRecord> last_taken_;
  std::chrono::steady_clock::time_point last_taken_at_{};
};

}  // namespace hvd::core
