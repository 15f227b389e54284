// SPDX-License-Identifier: Apache-2.0
#pragma once
// RendezvousStore: the KvStore of ranks started by hvdrun, over a connection to the rendezvous
// store that hvdrun hosts for the run (store/kv_server.h).
//
// Keys live under "<HVD_RUN_ID>/kv/", so that a stale client of an earlier run that reaches
// the same server cannot collide. The run id is a namespace, not a security boundary (it is
// guessable): what keeps other users out is the run's secret, which the client proves on
// connecting (store/kv_client.h, auth/handshake.h). get() waits on the server for a key set
// later (WAIT).
//
// barrier(name): the store's ADD counter plus WAIT. Each rank adds 1 to
// "<run>/barrier/<name>/<n>/count", where n counts this rank's barriers of that name; the
// rank whose ADD returns the world size sets ".../done", and every rank waits for "done".
// On timeout the error says how many ranks arrived.

#include <chrono>
#include <map>
#include <mutex>
#include <string>

#include "bootstrap/kv_store.h"
#include "store/kv_client.h"

namespace hvd::bootstrap {

class RendezvousStore final : public KvStore {
 public:
  /// Takes over `client`. `rank` and `size` are this process's place in the run.
  RendezvousStore(store::KvClient client, std::string run_id, int rank, int size);

  /// Calls are thread-safe but serialised over the one connection: while a get() or barrier()
  /// waits, other threads' calls wait too.
  void set(const std::string& key, const std::string& value) override;
  /// Throws TimeoutError naming the key, the store and the likely causes.
  std::string get(const std::string& key, std::chrono::milliseconds timeout) override;
  /// Throws TimeoutError saying how many of the ranks arrived.
  void barrier(const std::string& name, std::chrono::milliseconds timeout) override;
  std::string reachable_address() const override;

 private:
  std::string where() const;  // "hvdrun store at host:port, run ID"

  mutable std::mutex mutex_;
  store::KvClient client_;
  std::string run_id_;
  int rank_;
  int size_;
  std::map<std::string, int> barrier_counts_;  // per name: barriers this rank has entered
};

}  // namespace hvd::bootstrap
