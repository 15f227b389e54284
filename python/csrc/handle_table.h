// SPDX-License-Identifier: Apache-2.0
#pragma once
// Horovod's handles are ints; libhvd's are objects. The table holds each libhvd handle under
// the int given to Python until Python releases it after synchronize().

#include <cstdint>
#include <mutex>
#include <unordered_map>

#include "hvd/hvd.h"

namespace hvd::torch_ext {

class HandleTable {
 public:
  int64_t add(Handle h);
  /// Throws pybind11::key_error for an id never given out or already released.
  Handle get(int64_t id) const;
  void release(int64_t id);
  /// Forgets every handle (shutdown: Horovod's handles do not survive it either).
  void clear();

 private:
  mutable std::mutex mutex_;
  int64_t next_ = 1;
  std::unordered_map<int64_t, Handle> handles_;
};

}  // namespace hvd::torch_ext
