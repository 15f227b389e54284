// SPDX-License-Identifier: Apache-2.0
#include "bootstrap/rendezvous_store.h"

#include <utility>

#include "hvd/error.h"
#include "hvd/str_cat.h"

namespace hvd::bootstrap {

RendezvousStore::RendezvousStore(store::KvClient client, std::string run_id, int rank, int size)
    : client_(std::move(client)), run_id_(std::move(run_id)), rank_(rank), size_(size) {}

std::string RendezvousStore::reachable_address() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return client_.local_address();
}

std::string RendezvousStore::where() const {
  return str_cat("hvdrun store at ", client_.endpoint(), ", run '", run_id_, "'");
}

void RendezvousStore::set(const std::string& key, const std::string& value) {
  const std::lock_guard<std::mutex> lock(mutex_);
  client_.set(str_cat(run_id_, "/kv/", key), value);
}

std::string RendezvousStore::get(const std::string& key, std::chrono::milliseconds timeout) {
  const std::lock_guard<std::mutex> lock(mutex_);
  try {
    return client_.get(str_cat(run_id_, "/kv/", key), timeout);
  } catch (const TimeoutError&) {
    throw TimeoutError(str_cat("rank ", rank_, ": key '", key, "' was not set by any rank within ",
                               timeout.count(), " ms (", where(),
                               "); a rank may be missing, have failed, or not have reached its "
                               "set() yet"));
  }
}

void RendezvousStore::barrier(const std::string& name, std::chrono::milliseconds timeout) {
  const std::lock_guard<std::mutex> lock(mutex_);
  const int round = barrier_counts_[name]++;
  const std::string base = str_cat(run_id_, "/barrier/", name, "/", round);
  const int64_t arrived = client_.add(base + "/count", 1);
  if (arrived > size_) {
    throw BootstrapError(str_cat("barrier '", name, "': ", arrived, " arrivals for ", size_,
                                 " ranks (", where(), "); do two runs share the run id?"));
  }
  if (arrived == size_) client_.set(base + "/done", "");
  try {
    client_.wait({base + "/done"}, timeout);
  } catch (const TimeoutError&) {
    std::string count = "not all";
    try {
      count = std::to_string(client_.add(base + "/count", 0));
    } catch (const Error&) {
      // The connection may be gone after a client-side timeout; the message still helps.
    }
    throw TimeoutError(str_cat("rank ", rank_, ": barrier '", name, "': ", count, " of ", size_,
                               " ranks arrived within ", timeout.count(), " ms (", where(),
                               "); a rank may be missing, have failed, or be elsewhere"));
  }
}

}  // namespace hvd::bootstrap
