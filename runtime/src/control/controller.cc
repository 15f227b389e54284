// SPDX-License-Identifier: Apache-2.0
#include "control/controller.h"

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <iostream>
#include <optional>
#include <utility>

#include "control/fusion_planner.h"
#include "control/join_rules.h"
#include "hvd/error.h"

namespace hvd::control {

Controller::Controller(Channel& channel, ControllerOptions options)
    : channel_(channel),
      options_(options),
      cache_(options.cache_capacity),
      table_(channel.size()),
      stall_(channel.size(), options.stall,
             options.clock != nullptr ? *options.clock : steady_clock_) {
  if (!options_.warn) {
    options_.warn = [](const std::string& line) { std::cerr << line << std::endl; };
  }
}

void Controller::inspect_stalls() {
  const StallReport report = stall_.check();
  if (!report.stalled.empty()) {
    options_.warn(format_stall_warning(report.stalled, report.threshold_seconds));
    if (options_.on_stall) options_.on_stall(report);
  }
  if (report.shutdown) {
    throw TimeoutError(
        str_cat("stall check: tensors waited more than ", options_.stall.shutdown_seconds,
                " s for other ranks (HOROVOD_STALL_SHUTDOWN_TIME_SECONDS); ",
                format_stall_warning(report.stalled, options_.stall.warning_seconds)));
  }
}

void Controller::Vote::clear() {
  hits.clear();
  uncached.clear();
  hit_bits.clear();
  invalid_bits.clear();
}

void Controller::sort_requests(const std::vector<const Request*>& fresh) {
  // Those that waited first, as they came before the fresh ones. Pointers only: the requests
  // stay where the caller keeps them (run_cycle()'s contract), so a tensor costs no copy.
  requests_.clear();
  requests_.swap(waiting_);
  requests_.insert(requests_.end(), fresh.begin(), fresh.end());
  for (size_t i = 0; i < requests_.size(); ++i) {
    const Request& r = *requests_[i];
    const ResponseCache::Found found = cache_.find(r);
    switch (found.state) {
      case ResponseCache::State::kHit:
        vote_.hits.push_back(i);
        vote_.hit_bits.push_back(found.bit);
        break;
      case ResponseCache::State::kInvalid:
        vote_.invalid_bits.push_back(found.bit);
        add_uncached(r);
        break;
      case ResponseCache::State::kMiss:
        add_uncached(r);
        break;
    }
  }
}

void Controller::add_uncached(const Request& r) {
  // A join is negotiated like an uncached request, but is not a tensor to cache.
  if (r.type != OpType::kJoin) negotiating_[r.name] = r;
  vote_.uncached.push_back(r);
}

// Reads the vote: runs the hits that are ready everywhere, erases what some rank found invalid
// (its hits here must then be negotiated again), keeps the rest waiting. Runs every cycle, so it
// looks at this rank's hits, not at every bit of the cache.
void Controller::take_cache_ready(bool all_joined) {
  // The same bits on every rank, and usually none.
  const std::vector<size_t> invalid = votes_.invalid_bits();
  for (size_t bit : invalid) cache_.erase(bit);
  ready_bits_.clear();
  if (joined_ && !all_joined) {
    // This rank voted for every bit, so a bit that survived is one every active rank has ready:
    // run it, with zeros for this rank where it has no request of its own.
    for (size_t bit : cache_.bits()) {
      if (votes_.hit(bit)) ready_bits_.push_back(bit);
    }
  }
  const bool erased = !invalid.empty();
  for (size_t i = 0; i < vote_.hits.size(); ++i) {
    const Request& r = *requests_[vote_.hits[i]];
    size_t bit = vote_.hit_bits[i];
    if (erased) {  // the bits of sort_requests() hold unless an entry was erased since
      const ResponseCache::Found found = cache_.find(r);
      if (found.state != ResponseCache::State::kHit) {
        add_uncached(r);  // its entry was erased this cycle
        continue;
      }
      bit = found.bit;
    }
    if (votes_.hit(bit) && !all_joined) {
      if (!joined_) ready_bits_.push_back(bit);  // a joined rank has it from the scan above
    } else {
      waiting_.push_back(&r);
    }
  }
  // Bit order: the same on every rank, whatever order each rank enqueued in.
  // Usually sorted already: a step enqueues its tensors in the order they were first cached.
  if (!std::is_sorted(ready_bits_.begin(), ready_bits_.end())) {
    std::sort(ready_bits_.begin(), ready_bits_.end());
  }
  ready_.clear();
  for (size_t bit : ready_bits_) ready_.push_back(&cache_.use(bit));
}

void Controller::expire_cached_waits() {
  if (!options_.stall_check || waiting_.empty()) {
    cached_waiting_since_.clear();  // steady state: nothing waits, nothing to remember
    return;
  }
  // Names that ran since stay until nothing waits; past this the map is rebuilt.
  if (cached_waiting_since_.size() > 4 * waiting_.size() + 64) cached_waiting_since_.clear();
  const Clock::TimePoint now = stall_.now();
  const auto limit = std::chrono::duration_cast<Clock::Duration>(std::chrono::duration<double>(
      std::min(options_.stall.warning_seconds, options_.stall.floor_seconds)));
  for (const Request* r : waiting_) {
    const auto [it, fresh] = cached_waiting_since_.try_emplace(r->name, now);
    if (fresh || now - it->second <= limit) continue;
    const ResponseCache::Found found = cache_.find(*r);
    if (found.state == ResponseCache::State::kHit) stale_bits_.push_back(found.bit);
    cached_waiting_since_.erase(it);
  }
}

void Controller::copy_ready_out_of_cache() {
  ready_copies_.clear();
  ready_copies_.reserve(ready_.size());  // no reallocation below: the pointers stay valid
  for (const Response*& r : ready_) {
    ready_copies_.push_back(*r);
    r = &ready_copies_.back();
  }
}

bool Controller::vote_as_joined() {
  bool invalidated = false;
  for (size_t bit : cache_.bits()) {
    const Response& r = cache_.peek(bit);
    if (can_run_with_joined(r.type, r.op, r.device)) {
      votes_.set_hit(bit);
    } else {
      // Back to negotiation, where the coordinator fails it with the joined ranks named;
      // waiting for this rank's bit instead would hang the ranks that submitted it.
      votes_.set_invalid(bit);
      invalidated = true;
    }
  }
  return invalidated;
}

void Controller::plan_ready(CycleResult& result) {
  // A training loop's steps run the same cached responses cycle after cycle: the same
  // pointers into an unchanged cache make the same plan, which result.responses still holds.
  const bool from_cache = !result.negotiated;
  if (from_cache && plan_from_cache_ && cache_.version() == planned_version_ &&
      ready_ == planned_from_) {
    return;
  }
  planner_.plan(ready_, options_.fusion_threshold_bytes, result.responses);
  plan_from_cache_ = from_cache;
  planned_version_ = cache_.version();
  planned_from_ = ready_;
}

VoteFold Controller::offer_fold(bool want_shutdown, const FoldInput& fold) {
  const Vote& vote = vote_;
  // Only a cycle whose one tensor this is: with others beside it, they run anyway, and so
  // would it, fused with them. A joined rank takes part in others' tensors: it never folds.
  if (!fold || vote.hits.size() != 1 || !vote.uncached.empty() || !vote.invalid_bits.empty() ||
      joined_ || want_shutdown) {
    return {};
  }
  const size_t bit = vote.hit_bits[0];
  const Response& r = cache_.peek(bit);
  if (!can_fold(r) || fold_bytes(r) > votes_.data_bytes()) return {};
  if (!fold(r, *requests_[vote.hits[0]], votes_.fold_data())) return {};
  votes_.set_fold(bit);
  return VoteFold{static_cast<size_t>(r.counts[0]), r.dtype, r.op};
}

void Controller::add_join_responses(std::vector<Response>& responses) {
  for (const std::string& name : table_.completed_by_joins()) {
    responses.push_back(table_.take_response(name));
    stall_.record_done(name);
  }
  if (!table_.all_joined()) return;
  // Last, so that every tensor of this cycle has run when join() returns.
  Response join;
  join.type = OpType::kJoin;
  join.names = {kJoinName};
  join.last_joined_rank = table_.last_joined();
  responses.push_back(std::move(join));
  table_.reset_joins();
}

std::vector<Response> Controller::negotiate(const std::vector<Request>& uncached) {
  const int root = options_.coordinator;
  const std::vector<std::string> all = channel_.gather(encode_requests(uncached), root);
  std::string answer;
  if (channel_.rank() == root) {
    std::vector<Response> responses;
    const Clock::TimePoint now = stall_.now();  // once: the requests all arrived just now
    for (size_t from = 0; from < all.size(); ++from) {
      for (const Request& r : decode_requests(all[from])) {
        // The channel says whose bytes these are; a request that names another rank would let
        // one peer submit, or block, tensors in another's name.
        if (r.rank != static_cast<int>(from)) {
          throw BackendError(str_cat("control message from rank ", from, ": a request for '",
                                     r.name, "' claims to be rank ", r.rank, "'s; refused"));
        }
        if (r.type == OpType::kJoin) {
          table_.join(r.rank);
          continue;
        }
        stall_.record_ready(r.name, r.rank, now);
        if (table_.add(r)) {
          responses.push_back(table_.take_response(r.name));
          stall_.record_done(r.name);
        }
      }
    }
    add_join_responses(responses);
    answer = encode_responses(responses);
  }
  std::vector<Response> negotiated = decode_responses(channel_.broadcast(answer, root));
  for (const Response& r : negotiated) {
    if (r.kind == Response::Kind::kRun && r.type == OpType::kJoin) joined_ = false;
    // A joined rank has no request to cache a with_joined response with; so nobody caches it.
    if (r.kind != Response::Kind::kRun || r.type == OpType::kJoin || r.with_joined) continue;
    const auto it = negotiating_.find(r.names.at(0));
    HVD_CHECK(it != negotiating_.end(), "negotiated tensor '", r.names[0],
              "' was never requested here");
    cache_.put(r, it->second);
  }
  return negotiated;
}

// Steps 1 and 2 of the protocol (controller.h): sorts this rank's requests by cache state and
// votes on them, with the flags and, when it can ride along, one tensor's data.
void Controller::cast_vote(const std::vector<const Request*>& fresh, bool want_shutdown,
                           const FoldInput& fold) {
  for (const Request* r : fresh) {
    if (r->type == OpType::kJoin) joined_ = true;
  }
  vote_.clear();
  sort_requests(fresh);

  // The data part only once something is cached: before that, no tensor can fold.
  votes_.reset(cache_.span(), cache_.size() > 0 ? kFoldBytes : 0);
  for (size_t bit : vote_.hit_bits) votes_.set_hit(bit);
  for (size_t bit : vote_.invalid_bits) votes_.set_invalid(bit);
  // This rank negotiates the stale tensors again once every rank erased their bits.
  bool no_uncached = vote_.uncached.empty() && stale_bits_.empty();
  for (size_t bit : stale_bits_) votes_.set_invalid(bit);
  stale_bits_.clear();
  if (joined_ && vote_as_joined()) no_uncached = false;
  votes_.set_flag(CacheVote::kNoUncached, no_uncached);
  votes_.set_flag(CacheVote::kNoShutdown, !want_shutdown);
  votes_.set_flag(CacheVote::kJoined, joined_);
  votes_.set_flag(CacheVote::kNoSetWork, !busy_elsewhere_);
  const VoteFold reduce = offer_fold(want_shutdown, fold);
  channel_.vote(votes_.words(), votes_.and_words(), reduce);
}

void Controller::start_result(CycleResult& result) const {
  result.shutdown = !votes_.flag(CacheVote::kNoShutdown);
  result.negotiated = false;
  result.joined = joined_;
  result.set_work = !votes_.flag(CacheVote::kNoSetWork);
  result.folded = nullptr;
  result.folded_data = nullptr;
}

void Controller::record_cached_runs() {
  if (options_.stall_check && channel_.rank() == options_.coordinator && !ready_.empty()) {
    // The job's pace, from the cached tensors that run every step (StallInspector::record_run).
    const Clock::TimePoint now = stall_.now();
    for (const Response* r : ready_) {
      for (const std::string& name : r->names) stall_.record_run(name, now);
    }
  }
}

void Controller::negotiate_if_voted(CycleResult& result) {
  ready_copies_.clear();
  negotiated_.clear();
  if (!votes_.flag(CacheVote::kNoUncached)) {
    result.negotiated = true;
    copy_ready_out_of_cache();
    negotiated_ = negotiate(vote_.uncached);
    for (const Response& r : negotiated_) {
      for (const std::string& name : r.names) negotiating_.erase(name);
      ready_.push_back(&r);
    }
  } else {
    HVD_CHECK(vote_.uncached.empty(), "uncached requests after a vote that saw none");
  }
}

void Controller::take_folded(CycleResult& result) {
  if (const std::optional<size_t> bit = votes_.folded()) {
    // Every rank folded this tensor, its only one pending: it is all this cycle runs.
    HVD_CHECK(ready_.size() == 1 && ready_[0]->names == cache_.peek(*bit).names,
              "a folded vote with ", ready_.size(), " responses ready");
    result.folded = ready_[0];
    result.folded_data = votes_.fold_data();
    ready_.clear();
  }
}

const CycleResult& Controller::run_cycle(const std::vector<const Request*>& fresh,
                                         bool want_shutdown, const FoldInput& fold) {
  cast_vote(fresh, want_shutdown, fold);
  CycleResult& result = result_;
  start_result(result);
  take_cache_ready(votes_.flag(CacheVote::kJoined));
  expire_cached_waits();
  record_cached_runs();
  negotiate_if_voted(result);
  take_folded(result);
  if (options_.stall_check && channel_.rank() == options_.coordinator) inspect_stalls();
  plan_ready(result);
  return result;
}

}  // namespace hvd::control
