// SPDX-License-Identifier: Apache-2.0
#pragma once
// KvStore: the key-value exchange ranks use to find each other (addresses of their TCP
// listeners, NCCL unique ids). Implemented over hvdrun's rendezvous store, PMIx or MPI.

#include <chrono>
#include <string>

namespace hvd::bootstrap {

class KvStore {
 public:
  virtual ~KvStore() = default;
  /// Publishes `value` under `key` for every rank of this run.
  virtual void set(const std::string& key, const std::string& value) = 0;
  /// Waits for `key` and returns its value; throws TimeoutError after `timeout`.
  virtual std::string get(const std::string& key, std::chrono::milliseconds timeout) = 0;
  /// Returns once every rank has called barrier() with the same `name`.
  virtual void barrier(const std::string& name, std::chrono::milliseconds timeout) = 0;
};

}  // namespace hvd::bootstrap
