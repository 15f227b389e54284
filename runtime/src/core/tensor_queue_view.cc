// SPDX-License-Identifier: Apache-2.0
// TensorQueue's diagnostics (`hvdrun why`): kept apart from the queue's hot path, which only
// numbers each entry and notes the last one taken (one clock read per add and per take).
#include <algorithm>

#include "core/tensor_queue.h"

namespace hvd::core {
namespace {

double seconds_since(std::chrono::steady_clock::time_point then,
                     std::chrono::steady_clock::time_point now) {
  return std::chrono::duration<double>(now - then).count();
}

diag::OpRecord record_of(const TensorEntry& e, std::chrono::steady_clock::time_point now) {
  return diag::OpRecord{e.request.name, std::string(control::op_type_name(e.request.type)),
                        e.process_set, e.seq, seconds_since(e.queued_at, now)};
}

}  // namespace

void TensorQueue::stamp_locked(TensorEntry& entry) {
  entry.seq = ++submitted_;
  entry.queued_at = std::chrono::steady_clock::now();
  last_change_ = entry.queued_at;
}

void TensorQueue::note_taken_locked(const TensorEntry& last, size_t count) {
  taken_count_ += count;
  last_taken_at_ = std::chrono::steady_clock::now();
  last_change_ = last_taken_at_;
  if (!last_taken_) last_taken_.emplace();
  // Assigned in place: the name's buffer is reused from step to step.
  last_taken_->name = last.request.name;
  last_taken_->op = control::op_type_name(last.request.type);
  last_taken_->process_set = last.process_set;
  last_taken_->seq = last.seq;
}

diag::QueueView TensorQueue::view() const {
  const auto now = std::chrono::steady_clock::now();
  diag::QueueView v;
  std::lock_guard<std::mutex> lock(mutex_);
  v.pending.reserve(entries_.size());
  for (const auto& [key, entry] : entries_) v.pending.push_back(record_of(entry, now));
  std::sort(v.pending.begin(), v.pending.end(),
            [](const diag::OpRecord& a, const diag::OpRecord& b) { return a.seq < b.seq; });
  if (last_taken_) {
    v.last_done = *last_taken_;
    v.last_done->age_s = seconds_since(last_taken_at_, now);
  }
  v.submitted = submitted_;
  v.completed = taken_count_;
  v.quiet_s = seconds_since(last_change_, now);
  return v;
}

}  // namespace hvd::core
