// SPDX-License-Identifier: Apache-2.0
#pragma once
// KvTable: the store's data and its parked WAITs, without any sockets (store/kv_server.cc
// owns the connections and calls in from its serving thread only).
//
// A WAIT that cannot be answered yet is parked under the connection's id, indexed under the
// first key it still misses; a SET or ADD that creates that key moves it on, and a deadline
// index gives the poll timeout and the expiries. Keys plus values are counted against a
// total, and a SET or ADD that would pass it is refused with an ERROR reply.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "store/kv_protocol.h"

namespace hvd::store {

class KvTable {
 public:
  using Clock = std::chrono::steady_clock;

  explicit KvTable(size_t max_stored_bytes) : max_stored_bytes_(max_stored_bytes) {}

  /// Carries out `req` for connection `id`: the reply, or nullopt when it is a WAIT now parked
  /// (its reply comes out of take_finished()). A connection has at most one parked WAIT.
  std::optional<Reply> execute(uint64_t id, Request& req, Clock::time_point now);

  bool waiting(uint64_t id) const { return waits_.count(id) > 0; }
  /// Forgets connection id's parked WAIT (the connection is gone).
  void cancel(uint64_t id);
  /// Ends the WAITs whose deadline is not after `now` with TIMEOUT.
  void expire(Clock::time_point now);
  /// The nearest parked deadline, if any.
  std::optional<Clock::time_point> nearest_deadline() const;
  /// WAITs that ended since the last call, in order: the connection and its reply.
  std::vector<std::pair<uint64_t, Reply>> take_finished();

  size_t stored_bytes() const { return stored_bytes_; }

 private:
  struct ParkedWait {
    std::vector<std::string> keys;
    size_t cursor = 0;  // keys before it were present; indexed under keys[cursor]
    Clock::time_point deadline;
  };

  Reply set_value(const std::string& key, std::string value);
  Reply add(const std::string& key, const std::string& delta_text);
  Reply erase(const std::string& key);
  std::optional<Reply> start_wait(uint64_t id, std::vector<std::string> keys, uint32_t ms,
                                  Clock::time_point now);
  bool advance(ParkedWait& w) const;
  void on_key_created(const std::string& key);
  void finish(uint64_t id, Reply reply);
  void unindex(uint64_t id, const ParkedWait& w);
  std::string missing_keys(const std::vector<std::string>& keys) const;

  size_t max_stored_bytes_;
  size_t stored_bytes_ = 0;
  std::unordered_map<std::string, std::string> data_;
  std::unordered_map<uint64_t, ParkedWait> waits_;
  // missing key -> connections whose parked WAIT is indexed under it (exactly those).
  std::unordered_map<std::string, std::vector<uint64_t>> waiters_;
  std::set<std::pair<Clock::time_point, uint64_t>> deadlines_;
  std::vector<std::pair<uint64_t, Reply>> finished_;
};

}  // namespace hvd::store
