// SPDX-License-Identifier: Apache-2.0
#pragma once
// ExchangeStore: a KvStore for launchers that offer a collective instead of a server (PMIx,
// MPI, one process alone). Semantics, as documented in kv_store.h:
//
//   set(k, v)     records v locally; this rank's get(k) sees it at once.
//   barrier(n)    collective: every rank sends the values it set since its last barrier, with
//                 the barrier's name, in one allgather; afterwards every rank knows them all.
//                 Ranks that name different barriers get BootstrapError naming both.
//   get(k)        a local lookup: the value this rank set or learnt at a barrier, else
//                 BootstrapError at once (no other rank can make it appear without a barrier).
//
// One allgather per barrier carries everything, so the cost is one collective however many
// keys there are; it suits bootstrap-sized data (addresses, ids), not bulk transfer.

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "bootstrap/kv_store.h"

namespace hvd::bootstrap {

/// The one collective an ExchangeStore needs, over PMIx (pmix_exchange.h), MPI
/// (mpi_exchange.h), or nothing (SoloExchange). The implementation owns the library session.
class Exchange {
 public:
  virtual ~Exchange() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  /// "PMIx", "MPI", ... for messages.
  virtual std::string name() const = 0;
  /// Collective: every rank passes its blob and gets every rank's, indexed by rank. Throws
  /// TimeoutError when the others do not all arrive within `timeout` (where the library can
  /// tell), BackendError when the library fails.
  virtual std::vector<std::string> allgather(const std::string& mine,
                                             std::chrono::milliseconds timeout) = 0;
};

/// A single process: rank 0 of 1; allgather returns the blob it was given.
class SoloExchange final : public Exchange {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  std::string name() const override { return "single-process"; }
  std::vector<std::string> allgather(const std::string& mine,
                                     std::chrono::milliseconds /*timeout*/) override {
    return {mine};
  }
};

class ExchangeStore final : public KvStore {
 public:
  explicit ExchangeStore(std::unique_ptr<Exchange> exchange);

  /// Thread-safe with get().
  void set(const std::string& key, const std::string& value) override;
  /// Never waits: `timeout` is unused (see above). Thread-safe with set().
  std::string get(const std::string& key, std::chrono::milliseconds timeout) override;
  /// Collective; one thread per rank at a time.
  void barrier(const std::string& name, std::chrono::milliseconds timeout) override;

  Exchange& exchange() { return *exchange_; }
  /// True: the exchange owns the PMIx or MPI session (MPI_Finalize when it goes).
  bool holds_session() const override { return true; }

 private:
  std::unique_ptr<Exchange> exchange_;
  std::mutex mutex_;                             // guards the two maps
  std::map<std::string, std::string> known_;     // everything get() can answer
  std::map<std::string, std::string> unshared_;  // set since the last barrier
  int barriers_done_ = 0;
};

}  // namespace hvd::bootstrap
