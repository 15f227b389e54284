// SPDX-License-Identifier: Apache-2.0
#include "core/tensor_queue.h"

#include <algorithm>
#include <string_view>

#include "common/spin_wait.h"
#include "core/handle_pool.h"
#include "hvd/error.h"

namespace hvd::core {
namespace {

Status in_flight_error(std::string_view name) {
  return Status::error(ErrorCode::kUsage,
                       str_cat("tensor '", name,
                               "' is already in flight on this rank; wait for it before "
                               "submitting the same name again"));
}

}  // namespace

std::shared_ptr<HandleState> new_handle(std::shared_ptr<CycleTurns> turns) {
  return std::allocate_shared<HandleState>(HandlePoolAllocator<HandleState>(), std::move(turns));
}

void HandleState::mark_done(const Status& status) {
  std::lock_guard<std::mutex> lock(mutex_);
  HVD_CHECK(!done_, "a handle completed twice");
  status_ = status;
  done_ = true;
  done_flag_.store(true, std::memory_order_release);
}

void HandleState::complete(Status status) {
  mark_done(status);
  wake_waiters();
}

void HandleState::complete_all(const std::vector<std::shared_ptr<HandleState>>& handles,
                               const Status& status) {
  for (const auto& h : handles) h->mark_done(status);
  for (const auto& h : handles) h->wake_waiters();
}

void complete_entries(const std::vector<TensorEntry>& entries, const Status& status) {
  for (const TensorEntry& e : entries) e.handle->mark_done(status);
  for (const TensorEntry& e : entries) e.handle->wake_waiters();
}

Status HandleState::wait() {
  // Done already (the common case: a caller waits on its tensors in turn, and the first wait's
  // cycle completed them all): status_ was written before the flag and never changes after it.
  if (done_flag_.load(std::memory_order_acquire)) return status_;
  if (turns_) turns_->drive_until(done_flag_);
  if (!spin_briefly([this] { return done_flag_.load(std::memory_order_acquire); })) {
    std::unique_lock<std::mutex> lock(mutex_);
    cv_.wait(lock, [this] { return done_; });
  }
  return status_;
}

bool HandleState::done() const { return done_flag_.load(std::memory_order_acquire); }

// One entry is the common case (every allreduce_async): checked and queued without a vector.
Status TensorQueue::add(TensorEntry&& entry, bool wake) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!closed_.ok()) return closed_;
    if (!insert_locked(entry)) return in_flight_error(entry.request.name);
    publish_fresh_locked();
  }
  notify_fresh(wake);
  return Status();
}

Status TensorQueue::add_group(std::vector<TensorEntry> entries, bool wake) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const Status added = add_locked(entries);
    if (!added.ok()) return added;
  }
  // Outside the lock, so that the woken loop does not block on it at once.
  notify_fresh(wake);
  return Status();
}

Status TensorQueue::add_locked(std::vector<TensorEntry>& entries) {
  if (!closed_.ok()) return closed_;
  // The inserts find the names in flight, those of this group's earlier tensors included
  // (its tensors share one set); on the first, the group's inserts are undone.
  fresh_.reserve(fresh_.size() + entries.size());
  const size_t fresh_before = fresh_.size();
  for (size_t i = 0; i < entries.size(); ++i) {
    if (insert_locked(entries[i])) continue;
    Status refused = in_flight_error(entries[i].request.name);
    for (size_t j = 0; j < i; ++j) {
      const FreshRequest& f = fresh_[fresh_before + j];
      Entries::node_type node = entries_.extract(Key{f.process_set, f.request->name});
      entries[j] = std::move(node.mapped());
      spare_nodes_.push_back(std::move(node));
    }
    fresh_.resize(fresh_before);
    return refused;
  }
  publish_fresh_locked();
  return Status();
}

bool TensorQueue::insert_locked(TensorEntry& entry) {
  if (!spare_nodes_.empty()) {
    Entries::node_type node = std::move(spare_nodes_.back());
    spare_nodes_.pop_back();
    node.mapped() = std::move(entry);
    node.key() = Key{node.mapped().process_set, node.mapped().request.name};
    Entries::insert_return_type put = entries_.insert(std::move(node));
    if (!put.inserted) {  // in flight: the entry goes back to the caller, the node to the spares
      entry = std::move(put.node.mapped());
      spare_nodes_.push_back(std::move(put.node));
      return false;
    }
    stamp_locked(put.position->second);
    fresh_.push_back(FreshRequest{put.position->second.process_set, &put.position->second.request});
    return true;
  }
  // try_emplace looks the key up before it moves the entry (whose name the key still views),
  // and leaves the entry alone when the name is in flight; the new key is pointed at the name
  // in the node, which stays where it is.
  const auto [it, inserted] =
      entries_.try_emplace(Key{entry.process_set, entry.request.name}, std::move(entry));
  if (!inserted) return false;
  it->first.name = it->second.request.name;
  stamp_locked(it->second);
  fresh_.push_back(FreshRequest{it->second.process_set, &it->second.request});
  return true;
}

void TensorQueue::wait_for_fresh(std::chrono::steady_clock::time_point deadline) {
  spin_briefly([this] { return fresh_flag_.load(std::memory_order_acquire); }, deadline);
  std::unique_lock<std::mutex> lock(mutex_);
  fresh_cv_.wait_until(lock, deadline, [this] { return !fresh_.empty() || woken_; });
  woken_ = false;
  publish_fresh_locked();
}

void TensorQueue::wake() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    woken_ = true;
    publish_fresh_locked();
  }
  fresh_cv_.notify_one();
}

std::vector<FreshRequest> TensorQueue::pop_fresh() {
  std::vector<FreshRequest> out;
  pop_fresh(out);
  return out;
}

void TensorQueue::pop_fresh(std::vector<FreshRequest>& out) {
  out.clear();
  std::lock_guard<std::mutex> lock(mutex_);
  out.swap(fresh_);
  publish_fresh_locked();
}

std::vector<TensorEntry> TensorQueue::take(int process_set, const std::vector<std::string>& names) {
  std::vector<TensorEntry> out;
  take(process_set, names, out);
  return out;
}

void TensorQueue::take(int process_set, const std::vector<std::string>& names,
                       std::vector<TensorEntry>& out) {
  out.reserve(out.size() + names.size());
  std::lock_guard<std::mutex> lock(mutex_);
  for (const std::string& name : names) {
    auto it = entries_.find(Key{process_set, name});
    HVD_CHECK(it != entries_.end(), "tensor '", name, "' has no queued entry");
    Entries::node_type node = entries_.extract(it);
    out.push_back(std::move(node.mapped()));
    spare_nodes_.push_back(std::move(node));
  }
  if (!names.empty()) note_taken_locked(out.back(), names.size());
}

std::optional<TensorEntry> TensorQueue::take_if_queued(int process_set, const std::string& name) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = entries_.find(Key{process_set, name});
  if (it == entries_.end()) return std::nullopt;
  return std::move(entries_.extract(it).mapped());
}

void TensorQueue::fail_all(const Status& status) {
  std::unordered_map<Key, TensorEntry, KeyHash> failed;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    closed_ = status;
    failed.swap(entries_);
    fresh_.clear();
    publish_fresh_locked();
  }
  std::vector<std::shared_ptr<HandleState>> handles;
  for (auto& [name, entry] : failed) handles.push_back(entry.handle);
  HandleState::complete_all(handles, status);
}

void TensorQueue::fail_set(int process_set, const Status& status) {
  std::vector<std::shared_ptr<HandleState>> handles;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto it = entries_.begin(); it != entries_.end();) {
      if (it->first.process_set == process_set) {
        handles.push_back(it->second.handle);
        it = entries_.erase(it);
      } else {
        ++it;
      }
    }
    fresh_.erase(
        std::remove_if(fresh_.begin(), fresh_.end(),
                       [&](const FreshRequest& f) { return f.process_set == process_set; }),
        fresh_.end());
    publish_fresh_locked();
  }
  HandleState::complete_all(handles, status);
}

size_t TensorQueue::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return entries_.size();
}

}  // namespace hvd::core
