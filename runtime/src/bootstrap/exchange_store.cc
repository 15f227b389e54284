// SPDX-License-Identifier: Apache-2.0
#include "bootstrap/exchange_store.h"

#include <utility>

#include "bootstrap/string_pack.h"
#include "hvd/error.h"
#include "hvd/str_cat.h"

namespace hvd::bootstrap {

ExchangeStore::ExchangeStore(std::unique_ptr<Exchange> exchange) : exchange_(std::move(exchange)) {
  HVD_CHECK(exchange_ != nullptr, "ExchangeStore needs an Exchange");
}

void ExchangeStore::set(const std::string& key, const std::string& value) {
  const std::lock_guard<std::mutex> lock(mutex_);
  known_[key] = value;
  unshared_[key] = value;
}

std::string ExchangeStore::get(const std::string& key, std::chrono::milliseconds /*timeout*/) {
  const std::lock_guard<std::mutex> lock(mutex_);
  const auto it = known_.find(key);
  if (it != known_.end()) return it->second;
  throw BootstrapError(str_cat(
      "key '", key, "' is unknown on rank ", exchange_->rank(), " of ", exchange_->size(), ": the ",
      exchange_->name(), " store shares values only at barrier() (", barriers_done_,
      " so far), so set() it on some rank, then barrier() on all, before get()"));
}

void ExchangeStore::barrier(const std::string& name, std::chrono::milliseconds timeout) {
  // Blob: the barrier's name, then key, value, key, value...
  std::map<std::string, std::string> sent;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    sent = unshared_;
  }
  std::vector<std::string> mine = {name};
  for (const auto& [key, value] : sent) {
    mine.push_back(key);
    mine.push_back(value);
  }
  std::vector<std::string> blobs;
  try {
    blobs = exchange_->allgather(pack_strings(mine), timeout);
  } catch (const TimeoutError& e) {
    throw TimeoutError(str_cat("barrier '", name, "' over ", exchange_->name(), " on rank ",
                               exchange_->rank(), ": ", e.what()));
  }
  HVD_CHECK(static_cast<int>(blobs.size()) == exchange_->size(), "allgather returned ",
            blobs.size(), " blobs for ", exchange_->size(), " ranks");
  std::map<std::string, std::string> learnt;
  for (size_t r = 0; r < blobs.size(); ++r) {
    const std::vector<std::string> parts =
        unpack_strings(blobs[r], str_cat("barrier data from rank ", r));
    if (parts.empty() || parts.size() % 2 != 1) {
      throw BootstrapError(str_cat("barrier '", name, "': malformed data from rank ", r));
    }
    if (parts[0] != name) {
      throw BootstrapError(str_cat("barrier mismatch: rank ", exchange_->rank(), " is at barrier '",
                                   name, "' but rank ", r, " is at '", parts[0],
                                   "' (ranks must call barrier() in the same order)"));
    }
    for (size_t i = 1; i + 1 < parts.size(); i += 2) learnt[parts[i]] = parts[i + 1];
  }
  const std::lock_guard<std::mutex> lock(mutex_);
  // A key set again by another thread during the allgather stays unshared until the next
  // barrier, and keeps its newer value here.
  for (const auto& [key, value] : sent) {
    const auto it = unshared_.find(key);
    if (it != unshared_.end() && it->second == value) unshared_.erase(it);
  }
  for (auto& [key, value] : learnt) {
    if (unshared_.count(key) == 0) known_[key] = std::move(value);
  }
  ++barriers_done_;
}

}  // namespace hvd::bootstrap
