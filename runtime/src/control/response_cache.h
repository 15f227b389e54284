// SPDX-License-Identifier: Apache-2.0
#pragma once
// ResponseCache: remembers the responses of tensors that were negotiated before, so that in
// steady state (the same tensors every step) a cycle needs no negotiation: each rank sets the
// bits of the cached tensors it has ready, one bitwise-AND allreduce of those bits tells every
// rank which tensors are ready everywhere, and they run (Horovod's response_cache.cc).
//
// Every rank must hold the same cache, bit for bit. That holds because every rank applies the
// same put()/erase() calls in the same order: the responses of a cycle, in the order the
// coordinator broadcast them. Eviction is least-recently-used, also driven only by those calls.

#include <cstddef>
#include <cstdint>
#include <list>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "control/message.h"

namespace hvd::control {

class ResponseCache {
 public:
  enum class State { kMiss, kHit, kInvalid };

  /// capacity 0 turns the cache off: every lookup misses and put() does nothing.
  explicit ResponseCache(size_t capacity);

  /// kHit when `request`'s name is cached with the same properties, kInvalid when the name is
  /// cached with different ones (the entry must be erased on every rank), else kMiss.
  State lookup(const Request& request) const;

  /// lookup() and, unless kMiss, the name's bit (one hash of the name, not two).
  struct Found {
    State state = State::kMiss;
    size_t bit = 0;
  };
  Found find(const Request& request) const;

  /// The bit of a cached name. Only for names lookup() reported as kHit or kInvalid.
  size_t bit_of(const std::string& name) const;
  /// The response cached at `bit`; marks it most recently used.
  const Response& use(size_t bit);
  /// The response cached at `bit`, leaving the LRU order alone (it must stay the same on every
  /// rank, and only some ranks peek: the joined ones, control/join_rules.h).
  const Response& peek(size_t bit) const;
  /// Whether `bit` holds a response.
  bool holds(size_t bit) const { return bit < capacity_ && slots_[bit].used; }

  /// Caches a single-tensor kRun response with the request it answered, evicting the least
  /// recently used entry when full. A name already cached is replaced in place.
  void put(const Response& response, const Request& request);
  void erase(size_t bit);

  size_t capacity() const { return capacity_; }
  size_t size() const { return by_name_.size(); }
  /// One past the highest bit in use (0 when empty). The same on every rank, as the caches
  /// are: the cache vote needs only this many bits, not capacity().
  size_t span() const { return span_; }
  /// Bits in use, ascending: the order in which cached responses run when several are ready.
  std::vector<size_t> bits() const;
  /// Changes whenever a cached response does (put, erase): a plan made from responses of an
  /// earlier version may be stale; one of this version still holds.
  uint64_t version() const { return version_; }

 private:
  struct Slot {
    Response response;
    Request request;
    std::list<size_t>::iterator lru;
    bool used = false;
  };
  size_t capacity_;
  std::vector<Slot> slots_;
  std::unordered_map<std::string, size_t> by_name_;
  std::list<size_t> lru_;  // front = most recently used
  // Ordered, so the lowest free bit goes first (identically on every rank) at O(log n) per
  // put or erase: re-sorting a vector on every erase cost 20 us at the default capacity.
  std::set<size_t> free_bits_;
  size_t span_ = 0;
  uint64_t version_ = 0;
};

/// The request properties that must match for a cached response to be reused.
bool same_properties(const Request& a, const Request& b);

}  // namespace hvd::control
