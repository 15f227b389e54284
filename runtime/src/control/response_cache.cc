// SPDX-License-Identifier: Apache-2.0
#include "control/response_cache.h"

#include <algorithm>

#include "hvd/error.h"

namespace hvd::control {

namespace {
bool same_properties_but_name(const Request& a, const Request& b) {
  return a.type == b.type && a.dtype == b.dtype && a.op == b.op && a.root == b.root &&
         a.device == b.device && a.shape == b.shape && a.prescale == b.prescale &&
         a.postscale == b.postscale && a.group == b.group && a.splits == b.splits;
}
}  // namespace

bool same_properties(const Request& a, const Request& b) {
  return a.name == b.name && same_properties_but_name(a, b);
}

ResponseCache::ResponseCache(size_t capacity) : capacity_(capacity), slots_(capacity) {
  // Lowest bits are handed out first, so that small caches use the front of the bit vector.
  for (size_t bit = 0; bit < capacity; ++bit) free_bits_.insert(free_bits_.end(), bit);
}

ResponseCache::State ResponseCache::lookup(const Request& request) const {
  return find(request).state;
}

ResponseCache::Found ResponseCache::find(const Request& request) const {
  const auto it = by_name_.find(request.name);
  if (it == by_name_.end()) return {};
  // The map matched the name already: compare it once per lookup, not twice.
  const State state = same_properties_but_name(slots_[it->second].request, request)
                          ? State::kHit
                          : State::kInvalid;
  return {state, it->second};
}

size_t ResponseCache::bit_of(const std::string& name) const {
  const auto it = by_name_.find(name);
  HVD_CHECK(it != by_name_.end(), "tensor '", name, "' is not cached");
  return it->second;
}

const Response& ResponseCache::use(size_t bit) {
  HVD_CHECK(bit < capacity_ && slots_[bit].used, "cache bit ", bit, " is empty");
  Slot& s = slots_[bit];
  lru_.splice(lru_.begin(), lru_, s.lru);
  return s.response;
}

const Response& ResponseCache::peek(size_t bit) const {
  HVD_CHECK(holds(bit), "cache bit ", bit, " is empty");
  return slots_[bit].response;
}

void ResponseCache::put(const Response& response, const Request& request) {
  if (capacity_ == 0) return;
  HVD_CHECK(response.kind == Response::Kind::kRun && response.names.size() == 1,
            "only single-tensor responses are cached");
  const std::string& name = response.names[0];
  ++version_;
  if (const auto it = by_name_.find(name); it != by_name_.end()) {
    Slot& s = slots_[it->second];
    s.response = response;
    s.request = request;
    lru_.splice(lru_.begin(), lru_, s.lru);
    return;
  }
  if (free_bits_.empty()) erase(lru_.back());
  const size_t bit = *free_bits_.begin();
  free_bits_.erase(free_bits_.begin());
  lru_.push_front(bit);
  slots_[bit] = Slot{response, request, lru_.begin(), true};
  by_name_[name] = bit;
  span_ = std::max(span_, bit + 1);
}

void ResponseCache::erase(size_t bit) {
  HVD_CHECK(bit < capacity_ && slots_[bit].used, "cache bit ", bit, " is empty");
  Slot& s = slots_[bit];
  ++version_;
  by_name_.erase(s.response.names[0]);
  lru_.erase(s.lru);
  s = Slot{};
  free_bits_.insert(bit);
  while (span_ > 0 && !slots_[span_ - 1].used) --span_;
}

std::vector<size_t> ResponseCache::bits() const {
  std::vector<size_t> out;
  for (const auto& [name, bit] : by_name_) out.push_back(bit);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace hvd::control
