// SPDX-License-Identifier: Apache-2.0
#pragma once
// KvStore: the key-value exchange ranks use to find each other (addresses of their TCP
// listeners, NCCL unique ids). Implemented over hvdrun's rendezvous store, PMIx or MPI.
//
// When a value set on one rank becomes visible on the others depends on the implementation:
//   - hvdrun's store (RendezvousStore): at once; get() waits for a key set later.
//   - PMIx, MPI and the single process (ExchangeStore): values travel only at barrier(), which
//     is collective; get() returns what this rank set or saw at an earlier barrier and throws
//     BootstrapError at once for anything else, since waiting could not make it appear.
// Code that works everywhere does set(), then barrier(), then get(). Keys and values are byte
// strings; the same key set by two ranks keeps one of the values (which one is unspecified).
// Ranks must call barrier() with the same names in the same order.

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
  /// An address of this host that the other ranks can reach, when the store knows one (hvdrun's
  /// store: the local end of the connection to it). Empty otherwise.
  virtual std::string reachable_address() const { return {}; }
  /// Whether destroying this store ends a library session the process still needs (PMIx, MPI):
  /// then the runtime keeps it; otherwise it lets the store go once its transports are built.
  virtual bool holds_session() const { return false; }
};

}  // namespace hvd::bootstrap
