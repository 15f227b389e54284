// SPDX-License-Identifier: Apache-2.0
#include "core/tensor_queue.h"

#include <set>

#include "hvd/error.h"

namespace hvd::core {

void HandleState::complete(Status status) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    HVD_CHECK(!done_, "a handle completed twice");
    status_ = std::move(status);
    done_ = true;
  }
  cv_.notify_all();
}

Status HandleState::wait() {
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

Status TensorQueue::add_group(std::vector<TensorEntry> entries) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const Status added = add_locked(entries);
    if (!added.ok()) return added;
  }
  // Outside the lock, so that the woken loop does not block on it at once.
  fresh_cv_.notify_one();
  return Status();
}

Status TensorQueue::add_locked(std::vector<TensorEntry>& entries) {
  if (!closed_.ok()) return closed_;
  std::set<std::string> names;
  for (const TensorEntry& e : entries) {
    const std::string& name = e.request.name;
    if (entries_.count(name) > 0 || !names.insert(name).second) {
      return Status::error(ErrorCode::kUsage,
                           str_cat("tensor '", name,
                                   "' is already in flight on this rank; "
                                   "wait for it before submitting the same name again"));
    }
  }
  for (TensorEntry& e : entries) {
    fresh_.push_back(e.request);
    const std::string name = e.request.name;
    entries_.emplace(name, std::move(e));
  }
  return Status();
}

void TensorQueue::wait_for_fresh(std::chrono::steady_clock::time_point deadline) {
  std::unique_lock<std::mutex> lock(mutex_);
  fresh_cv_.wait_until(lock, deadline, [this] { return !fresh_.empty() || woken_; });
  woken_ = false;
}

void TensorQueue::wake() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    woken_ = true;
  }
  fresh_cv_.notify_one();
}

std::vector<control::Request> TensorQueue::pop_fresh() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<control::Request> out;
  out.swap(fresh_);
  return out;
}

std::vector<TensorEntry> TensorQueue::take(const std::vector<std::string>& names) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<TensorEntry> out;
  for (const std::string& name : names) {
    auto it = entries_.find(name);
    HVD_CHECK(it != entries_.end(), "tensor '", name, "' has no queued entry");
    out.push_back(std::move(it->second));
    entries_.erase(it);
  }
  return out;
}

void TensorQueue::fail_all(const Status& status) {
  std::map<std::string, TensorEntry> failed;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    closed_ = status;
    failed.swap(entries_);
    fresh_.clear();
  }
  for (auto& [name, entry] : failed) entry.handle->complete(status);
}

size_t TensorQueue::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return entries_.size();
}

}  // namespace hvd::core
