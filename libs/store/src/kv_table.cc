// SPDX-License-Identifier: Apache-2.0
#include "kv_table.h"

#include <algorithm>

#include "hvd/error.h"
#include "hvd/str_cat.h"

namespace hvd::store {

std::optional<Reply> KvTable::execute(uint64_t id, Request& req, Clock::time_point now) {
  switch (req.op) {
    case Op::kPing:
      return Reply{};
    case Op::kSet:
      return set_value(req.keys[0], std::move(req.value));
    case Op::kGet: {
      const auto it = data_.find(req.keys[0]);
      if (it == data_.end()) return Reply{ReplyStatus::kNotFound, {}};
      return Reply{ReplyStatus::kOk, it->second};
    }
    case Op::kDelete:
      return erase(req.keys[0]);
    case Op::kAdd:
      return add(req.keys[0], req.value);
    case Op::kWait:
      return start_wait(id, std::move(req.keys), req.timeout_ms, now);
  }
  return Reply{ReplyStatus::kError, str_cat("unknown op ", static_cast<int>(req.op))};
}

// Refused rather than stored when the total would pass the limit: the caller's request fails
// with a clear message, and the store keeps serving everyone else.
Reply KvTable::set_value(const std::string& key, std::string value) {
  const auto it = data_.find(key);
  const size_t old_size = it == data_.end() ? 0 : key.size() + it->second.size();
  const size_t new_size = key.size() + value.size();
  if (new_size > old_size && stored_bytes_ - old_size + new_size > max_stored_bytes_) {
    return Reply{ReplyStatus::kError,
                 str_cat("the store is full: ", stored_bytes_, " bytes of keys and values held, ",
                         "the limit is ", max_stored_bytes_)};
  }
  stored_bytes_ = stored_bytes_ - old_size + new_size;
  if (it != data_.end()) {
    it->second = std::move(value);
  } else {
    data_.emplace(key, std::move(value));
    on_key_created(key);
  }
  return Reply{};
}

// A value that is not a counter, or an overflow, is the caller's error, not the connection's.
Reply KvTable::add(const std::string& key, const std::string& delta_text) {
  std::string text;
  try {
    const auto it = data_.find(key);
    text = add_counter(key, it == data_.end() ? "0" : it->second, delta_text);
  } catch (const BootstrapError& e) {
    return Reply{ReplyStatus::kError, e.what()};
  }
  Reply stored = set_value(key, text);
  if (stored.status != ReplyStatus::kOk) return stored;
  return Reply{ReplyStatus::kOk, std::move(text)};
}

Reply KvTable::erase(const std::string& key) {
  const auto it = data_.find(key);
  if (it == data_.end()) return Reply{ReplyStatus::kNotFound, {}};
  stored_bytes_ -= key.size() + it->second.size();
  data_.erase(it);
  return Reply{};
}

std::optional<Reply> KvTable::start_wait(uint64_t id, std::vector<std::string> keys, uint32_t ms,
                                         Clock::time_point now) {
  HVD_CHECK(!waiting(id), "store connection ", id, " parked a second WAIT");
  ParkedWait w{std::move(keys), 0, now + std::chrono::milliseconds(ms)};
  if (advance(w)) return Reply{};
  if (ms == 0) return Reply{ReplyStatus::kTimeout, missing_keys(w.keys)};
  waiters_[w.keys[w.cursor]].push_back(id);
  deadlines_.emplace(w.deadline, id);
  waits_.emplace(id, std::move(w));
  return std::nullopt;
}

// Moves the cursor past keys that exist; true when all do. Keys passed earlier may have been
// deleted since, so reaching the end checks them all once more.
bool KvTable::advance(ParkedWait& w) const {
  while (w.cursor < w.keys.size() && data_.count(w.keys[w.cursor]) > 0) ++w.cursor;
  if (w.cursor < w.keys.size()) return false;
  for (size_t i = 0; i < w.keys.size(); ++i) {
    if (data_.count(w.keys[i]) == 0) {
      w.cursor = i;
      return false;
    }
  }
  return true;
}

void KvTable::on_key_created(const std::string& key) {
  const auto it = waiters_.find(key);
  if (it == waiters_.end()) return;
  const std::vector<uint64_t> ids = std::move(it->second);
  waiters_.erase(it);
  for (const uint64_t id : ids) {
    const auto w = waits_.find(id);
    HVD_CHECK(w != waits_.end(), "store waiter index names connection ", id);
    if (advance(w->second)) {
      finish(id, Reply{});
    } else {
      waiters_[w->second.keys[w->second.cursor]].push_back(id);
    }
  }
}

void KvTable::finish(uint64_t id, Reply reply) {
  const auto it = waits_.find(id);
  if (it == waits_.end()) return;
  deadlines_.erase({it->second.deadline, id});
  waits_.erase(it);
  finished_.emplace_back(id, std::move(reply));
}

void KvTable::unindex(uint64_t id, const ParkedWait& w) {
  const auto it = waiters_.find(w.keys[w.cursor]);
  if (it == waiters_.end()) return;
  std::vector<uint64_t>& ids = it->second;
  ids.erase(std::remove(ids.begin(), ids.end(), id), ids.end());
  if (ids.empty()) waiters_.erase(it);
}

void KvTable::cancel(uint64_t id) {
  const auto it = waits_.find(id);
  if (it == waits_.end()) return;
  unindex(id, it->second);
  deadlines_.erase({it->second.deadline, id});
  waits_.erase(it);
}

void KvTable::expire(Clock::time_point now) {
  while (!deadlines_.empty() && deadlines_.begin()->first <= now) {
    const uint64_t id = deadlines_.begin()->second;
    const ParkedWait& w = waits_.at(id);
    unindex(id, w);
    finish(id, Reply{ReplyStatus::kTimeout, missing_keys(w.keys)});
  }
}

std::optional<KvTable::Clock::time_point> KvTable::nearest_deadline() const {
  if (deadlines_.empty()) return std::nullopt;
  return deadlines_.begin()->first;
}

std::vector<std::pair<uint64_t, Reply>> KvTable::take_finished() {
  std::vector<std::pair<uint64_t, Reply>> out;
  out.swap(finished_);
  return out;
}

std::string KvTable::missing_keys(const std::vector<std::string>& keys) const {
  std::vector<std::string_view> missing;
  for (const std::string& key : keys) {
    if (data_.count(key) == 0) missing.push_back(key);
  }
  return join_keys(missing);
}

}  // namespace hvd::store
