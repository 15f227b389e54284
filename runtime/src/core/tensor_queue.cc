// SPDX-License-Identifier: Apache-2.0
#include "core/tensor_queue.h"

#include <algorithm>
#include <string_view>

#include "common/spin_wait.h"
#include "hvd/error.h"

namespace hvd::core {

void HandleState::mark_done(Status status) {
  std::lock_guard<std::mutex> lock(mutex_);
  HVD_CHECK(!done_, "a handle completed twice");
  status_ = std::move(status);
  done_ = true;
  done_flag_.store(true, std::memory_order_release);
}

void HandleState::complete(Status status) {
  mark_done(std::move(status));
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
  if (turns_ && !done_flag_.load(std::memory_order_acquire)) turns_->drive_until(done_flag_);
  spin_briefly([this] { return done_flag_.load(std::memory_order_acquire); });
  std::unique_lock<std::mutex> lock(mutex_);
  cv_.wait(lock, [this] { return done_; });
  return status_;
}

bool HandleState::done() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return done_;
}

Status TensorQueue::add(TensorEntry entry) {
  std::vector<TensorEntry> one;
  one.push_back(std::move(entry));
  return add_group(std::move(one));
}

Status TensorQueue::add_group(std::vector<TensorEntry> entries, bool wake) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const Status added = add_locked(entries);
    if (!added.ok()) return added;
  }
  // Outside the lock, so that the woken loop does not block on it at once.
  if (wake) fresh_cv_.notify_one();
  return Status();
}

Status TensorQueue::add_locked(std::vector<TensorEntry>& entries) {
  if (!closed_.ok()) return closed_;
  auto in_flight = [](const std::string& name) {
    return Status::error(ErrorCode::kUsage, str_cat("tensor '", name,
                                                    "' is already in flight on this rank; "
                                                    "wait for it before submitting the same name "
                                                    "again"));
  };
  for (const TensorEntry& e : entries) {
    if (entries_.count(Key{e.process_set, e.request.name}) > 0) return in_flight(e.request.name);
  }
  if (entries.size() > 1) {  // a name twice within one group (whose tensors share one set)
    std::vector<std::string_view> names;
    names.reserve(entries.size());
    for (const TensorEntry& e : entries) names.push_back(e.request.name);
    std::sort(names.begin(), names.end());
    const auto twice = std::adjacent_find(names.begin(), names.end());
    if (twice != names.end()) return in_flight(std::string(*twice));
  }
  for (TensorEntry& e : entries) {
    fresh_.push_back(FreshRequest{e.process_set, e.request});
    Key key{e.process_set, e.request.name};
    entries_.emplace(std::move(key), std::move(e));
  }
  publish_fresh_locked();
  return Status();
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
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<FreshRequest> out;
  out.swap(fresh_);
  publish_fresh_locked();
  return out;
}

std::vector<TensorEntry> TensorQueue::take(int process_set, const std::vector<std::string>& names) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<TensorEntry> out;
  Key key{process_set, {}};
  for (const std::string& name : names) {
    key.name = name;
    auto it = entries_.find(key);
    HVD_CHECK(it != entries_.end(), "tensor '", name, "' has no queued entry");
    out.push_back(std::move(it->second));
    entries_.erase(it);
  }
  return out;
}

std::optional<BufferView> TensorQueue::input_of(int process_set, const std::string& name) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = entries_.find(Key{process_set, name});
  if (it == entries_.end()) return std::nullopt;
  return it->second.input;
}

std::optional<TensorEntry> TensorQueue::take_if_queued(int process_set, const std::string& name) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = entries_.find(Key{process_set, name});
  if (it == entries_.end()) return std::nullopt;
  TensorEntry entry = std::move(it->second);
  entries_.erase(it);
  return entry;
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
    fresh_.erase(std::remove_if(fresh_.begin(), fresh_.end(),
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
