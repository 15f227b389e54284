// SPDX-License-Identifier: Apache-2.0
#pragma once
// Controller: one negotiation cycle, run by the background thread of every rank.
//
// Protocol (after horovod/common/controller.cc):
//  1. Each rank looks up the requests enqueued since the last cycle (and those still waiting
//     from earlier cycles) in its ResponseCache: a hit sets that entry's bit, a name cached with
//     other properties is "invalid", anything else is uncached.
//  2. One vote (cache_vote.h), AND-ing [hit bits | NOT invalid bits | NOT has-uncached |
//     NOT wants-shutdown], packed in words over the cache's bits in use: a hit bit that survives
//     is ready on every rank; an invalid bit that falls is erased from every cache; the flags
//     become "some rank has uncached requests" and "some rank wants to shut down" (OR by De
//     Morgan). In steady state this is the only communication of a cycle; and when a rank's
//     one pending tensor is a small cached allreduce, its data rides on the vote too
//     (vote_fold.h), and the cycle is that tensor's only collective.
//  3. Only if some rank has uncached requests: they are gathered at the coordinator, which
//     adds them to its MessageTable; the names now requested by every rank become Responses
//     (or errors when the ranks disagree), broadcast to all ranks and put into every cache.
//     A request must name the rank whose bytes carried it: one that names another is a
//     BackendError at the coordinator, which ends the run.
//  4. Every rank runs the cache-ready responses (in bit order) and then the negotiated ones (in
//     the coordinator's order), packed by plan_fusion(). The list is identical on every rank,
//     and so are the caches, because every rank makes the same cache calls in the same order.
// Requests that are not ready stay with the controller for the next cycle.
//
// hvd.join() (control/join_rules.h) adds one flag to the vote, "this rank has joined", AND-ed
// into "every rank has joined": that is the cycle in which the coordinator completes the join,
// and in it no cache hit runs, since every rank voted for every bit.
//
// Stalls: the coordinator watches the names some ranks asked for while others have not; past
// the warning time it logs them with the missing ranks, past the shutdown time (if set) the
// cycle throws TimeoutError, which fails every pending tensor. Names waiting only in the cache
// vote (cached tensors some rank has not submitted) are not watched.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "control/cache_vote.h"
#include "control/channel.h"
#include "control/fusion_planner.h"
#include "control/message.h"
#include "control/message_table.h"
#include "control/response_cache.h"
#include "control/stall_inspector.h"
#include "control/vote_fold.h"

namespace hvd::control {

struct ControllerOptions {
  size_t cache_capacity = 1024;
  size_t fusion_threshold_bytes = size_t{128} << 20;
  int coordinator = 0;
  /// Stall inspector on the coordinator (HOROVOD_STALL_CHECK_*); off when disabled.
  bool stall_check = true;
  StallConfig stall;
  /// Where stall warnings go; defaults to stderr.
  std::function<void(const std::string&)> warn;
  /// Also told of each stall warning's tensors (hvdrun's verdict, diag/why_responder.h); on the
  /// coordinator's cycle thread, so it must not block. Empty: nobody.
  std::function<void(const StallReport&)> on_stall;
  /// Time source for the stall inspector; null means the steady clock.
  const Clock* clock = nullptr;
};

struct CycleResult {
  std::vector<Response> responses;  // to run now, in this order, on every rank
  bool shutdown = false;            // some rank asked to stop
  bool negotiated = false;          // a full negotiation took place (not only the cache vote)
  /// This rank had joined (hvd.join) during the cycle: responses may name tensors it never
  /// submitted, for which it contributes zeros.
  bool joined = false;
  /// Some rank had work in another process set. Those sets' cycles run after this set's vote,
  /// on ranks that wait for it, so every rank then votes at the cycle time (core/runtime_loop.cc
  /// spaces the votes of ranks with nothing in flight out otherwise).
  bool set_work = false;
  /// A tensor that rode on the vote (vote_fold.h), not in `responses`: its data reduced over
  /// all ranks (before postscale or averaging) is at folded_data. Both point into the
  /// controller (the response is usually its cached one), valid until the next cycle.
  const Response* folded = nullptr;
  const void* folded_data = nullptr;
};

class Controller {
 public:
  Controller(Channel& channel, ControllerOptions options);

  /// `fresh`: requests enqueued on this rank since the last cycle, borrowed, not copied: each
  /// must stay where it is, unchanged, until a response naming it has been returned (folded or
  /// in `responses`) or the controller is gone. libhvd's are the queued entries' own requests
  /// (core/tensor_queue.h), so a cached tensor costs no copy of its request; only those that
  /// go to negotiation are copied. `fold`: where this rank's data of a tensor that may ride on
  /// the vote comes from; empty, never. Throws what the channel throws (a dead peer), and at
  /// the coordinator BackendError for a peer's request that names another rank; the caller
  /// fails its pending work with it. The result is the controller's, reused: valid until the
  /// next run_cycle().
  const CycleResult& run_cycle(const std::vector<const Request*>& fresh, bool want_shutdown,
                               const FoldInput& fold = {});

  /// Coordinator only: names some ranks have asked for while others have not, with the ranks
  /// that have (what the stall inspector watches).
  std::map<std::string, std::vector<int>> pending() const { return table_.pending(); }
  /// This rank's requests that have not run yet.
  size_t in_flight() const { return negotiating_.size() + waiting_.size(); }
  /// This rank called join() and the join has not completed.
  bool joined() const { return joined_; }
  /// This rank has work in flight elsewhere (other process sets): every rank's result says so
  /// (CycleResult::set_work), so that the ranks that have nothing to do do not space their votes
  /// out while it waits in this set's vote to reach the other set's cycle.
  void set_busy_elsewhere(bool busy) { busy_elsewhere_ = busy; }
  /// Some rank had work in another set at the latest cycle (CycleResult::set_work).
  bool last_vote_set_work() const { return result_.set_work; }

 private:
  // A cycle's requests by what the cache said; kept across cycles for its memory. Hits stay
  // where they are in requests_; the uncached are copied out, to be sent.
  struct Vote {
    std::vector<size_t> hits;      // indices in requests_
    std::vector<size_t> hit_bits;  // requests_[hits[i]]'s bit at hit_bits[i]
    std::vector<size_t> invalid_bits;
    std::vector<Request> uncached;
    void clear();
  };
  // run_cycle()'s steps, in order: cast_vote() (protocol steps 1 and 2), start_result() (the
  // flags the vote decided), take_cache_ready(), expire_cached_waits(), record_cached_runs(),
  // negotiate_if_voted() (step 3), take_folded(), the stall check, plan_ready() (step 4).
  void cast_vote(const std::vector<const Request*>& fresh, bool want_shutdown,
                 const FoldInput& fold);
  void start_result(CycleResult& result) const;
  // Coordinator with the stall check on: the cache-ready tensors ran now (the job's pace).
  void record_cached_runs();
  // Negotiates when some rank voted that it has uncached requests; ready_ gets the responses.
  void negotiate_if_voted(CycleResult& result);
  // Moves the tensor that rode on the vote, if one did, from ready_ to result.folded.
  void take_folded(CycleResult& result);
  // Takes the waiting requests and `fresh` into requests_, then sorts them into vote_ by cache
  // state.
  void sort_requests(const std::vector<const Request*>& fresh);
  // An uncached request, copied until its negotiated response comes back (it is cached with it).
  void add_uncached(const Request& r);
  // Fills ready_ with the cached responses ready on every rank, in bit order.
  void take_cache_ready(bool all_joined);
  // A cached tensor that some rank never submits waits on its vote bit, where the stall
  // inspector (fed by negotiation) cannot see it. One that waited past the stall threshold is
  // voted invalid next cycle (Horovod's InvalidateStalledCachedTensors): negotiated again, the
  // coordinator names the missing ranks (controller.cc).
  void expire_cached_waits();
  // Before a negotiation, which may put() over cache slots that ready_ points to.
  void copy_ready_out_of_cache();
  // Fuses ready_ into result.responses, or keeps the last cycle's plan when it was made from
  // the same cached responses.
  void plan_ready(CycleResult& result);
  // A joined rank's vote on the cached entries it has no requests for; true when it marked
  // some invalid (which needs a negotiation in this cycle).
  bool vote_as_joined();
  // Puts this rank's one pending tensor on the vote when it can ride there (vote_fold.h);
  // returns how the channel reduces it (count 0: no fold).
  VoteFold offer_fold(bool want_shutdown, const FoldInput& fold);
  std::vector<Response> negotiate(const std::vector<Request>& uncached);
  // Coordinator: the responses the joins of this cycle made ready, and the join's own.
  void add_join_responses(std::vector<Response>& responses);
  void inspect_stalls();

  Channel& channel_;
  ControllerOptions options_;
  ResponseCache cache_;
  MessageTable table_;  // used on the coordinator only
  SteadyClock steady_clock_;
  StallInspector stall_;                 // used on the coordinator only
  std::vector<const Request*> waiting_;  // cache hits not yet ready on every rank (borrowed)
  std::unordered_map<std::string, Clock::TimePoint> cached_waiting_since_;  // by name
  std::vector<size_t> stale_bits_;  // waited too long: voted invalid in the next cycle
  // This rank's requests sent to the coordinator and not answered yet, by name. Cache hits are
  // not kept here: in steady state a tensor costs no copy of its request and no map insert.
  std::unordered_map<std::string, Request> negotiating_;
  CacheVote votes_;  // run_cycle()'s vote, kept to reuse its memory every cycle
  // The rest of a cycle's state, kept for the same reason. ready_ points at responses in the
  // cache (steady state: no copies), in ready_copies_ or in negotiated_.
  std::vector<const Request*> requests_;  // this cycle's: those that waited, then the fresh
  Vote vote_;
  std::vector<size_t> ready_bits_;
  std::vector<const Response*> ready_;
  std::vector<Response> ready_copies_;
  std::vector<Response> negotiated_;
  FusionPlanner planner_;
  CycleResult result_;
  bool busy_elsewhere_ = false;
  // What result_.responses was planned from: reused while ready_ and the cache are unchanged
  // (only when every response came from the cache, whose slots do not move).
  std::vector<const Response*> planned_from_;
  uint64_t planned_version_ = 0;
  bool plan_from_cache_ = false;
  bool joined_ = false;  // this rank called join() and the join has not completed
};

}  // namespace hvd::control
