// SPDX-License-Identifier: Apache-2.0
#include "handle_table.h"

#include <pybind11/pybind11.h>

#include <string>

namespace hvd::torch_ext {

int64_t HandleTable::add(Handle h) {
  std::lock_guard<std::mutex> lock(mutex_);
  const int64_t id = next_++;
  handles_.emplace(id, std::move(h));
  return id;
}

Handle HandleTable::get(int64_t id) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = handles_.find(id);
  if (it == handles_.end()) {
    throw pybind11::key_error("hvdrun.torch: no operation in flight has handle " +
                              std::to_string(id));
  }
  return it->second;
}

void HandleTable::release(int64_t id) {
  std::lock_guard<std::mutex> lock(mutex_);
  handles_.erase(id);
}

void HandleTable::clear() {
  std::lock_guard<std::mutex> lock(mutex_);
  handles_.clear();
}

}  // namespace hvd::torch_ext
