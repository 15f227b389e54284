// SPDX-License-Identifier: Apache-2.0
#include "core/set_rendezvous.h"

#include <vector>

#include "bootstrap/string_pack.h"
#include "hvd/error.h"
#include "hvd/str_cat.h"

namespace hvd::core {

void SetRendezvousStore::set(const std::string& key, const std::string& value) {
  known_[key] = value;
  unshared_[key] = value;
}

std::string SetRendezvousStore::get(const std::string& key, std::chrono::milliseconds /*timeout*/) {
  const auto it = known_.find(key);
  if (it != known_.end()) return it->second;
  throw BootstrapError(str_cat("process set setup: key '", key, "' is unknown on rank ",
                               all_.rank(), " (set it on some member, then barrier() on all)"));
}

void SetRendezvousStore::barrier(const std::string& name, std::chrono::milliseconds /*timeout*/) {
  round("0", name);
}

std::string SetRendezvousStore::finish(const std::string& error) {
  const std::string status = error.empty() ? "1" : "!" + error;
  while (!round(status, {})) {
  }
  return first_error_;
}

bool SetRendezvousStore::round(const std::string& status, const std::string& barrier) {
  // Message: the status, the barrier's name, then key, value, key, value...
  const bool done = status != "0";
  std::vector<std::string> mine = {status, barrier};
  for (auto& [key, value] : unshared_) {
    mine.push_back(key);
    mine.push_back(value);
  }
  unshared_.clear();
  std::vector<std::string> parts;
  if (all_.rank() == 0) {
    parts = all_.gather(bootstrap::pack_strings(mine), 0);
  } else {
    all_.gather(bootstrap::pack_strings(mine), 0);
  }
  const std::vector<std::string> blobs = bootstrap::unpack_strings(
      all_.broadcast(bootstrap::pack_strings(parts), 0), "process set setup round");
  HVD_CHECK(static_cast<int>(blobs.size()) == all_.size(), "a process set setup round of ",
            blobs.size(), " messages for ", all_.size(), " ranks");
  bool all_done = true;
  for (size_t r = 0; r < blobs.size(); ++r) {
    const std::vector<std::string> m =
        bootstrap::unpack_strings(blobs[r], str_cat("process set setup data from rank ", r));
    if (m.size() < 2 || m.size() % 2 != 0) {
      throw BootstrapError(str_cat("process set setup: malformed data from rank ", r));
    }
    const bool their_done = m[0] != "0";
    all_done = all_done && their_done;
    if (m[0].size() > 1 && m[0][0] == '!' && first_error_.empty()) {
      first_error_ = str_cat("rank ", r, ": ", m[0].substr(1));
    }
    if (!done && !their_done && m[1] != barrier) {
      throw BootstrapError(str_cat("process set setup: rank ", all_.rank(), " is at barrier '",
                                   barrier, "' but rank ", r, " is at '", m[1], "'"));
    }
    for (size_t i = 2; i + 1 < m.size(); i += 2) known_[m[i]] = m[i + 1];
  }
  return all_done;
}

}  // namespace hvd::core
