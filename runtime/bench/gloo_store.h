// SPDX-License-Identifier: Apache-2.0
#pragma once
// GlooStore: Gloo's rendezvous::Store over libhvd's rendezvous store (store/kv_server.h), so
// the Gloo peer meets the other ranks without Redis or shared files, under any bootstrap.
//
// Why not over the bootstrap's KvStore directly: the PMIx and MPI stores publish values only
// at collective barriers, while Gloo's full-mesh connect reads keys asymmetrically (rank r
// reads the host names of ranks below r only). So rank 0 serves a private KvServer for the
// Gloo rendezvous, its address travels once through the bootstrap store (set, barrier, get on
// every rank alike), and every rank then talks to it with a KvClient, whose get() waits.

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <gloo/rendezvous/store.h>

#include "bootstrap/kv_store.h"
#include "bootstrap/world_info.h"
#include "store/kv_client.h"
#include "store/kv_server.h"

namespace hvd::bench {

class GlooStore final : public gloo::rendezvous::Store {
 public:
  /// Collective: rank 0 starts the server on `host` (an address every rank can reach), every
  /// rank connects. `timeout` bounds each wait. Throws BootstrapError or TimeoutError.
  GlooStore(bootstrap::KvStore& kv, const bootstrap::WorldInfo& world, const std::string& host,
            std::chrono::milliseconds timeout);

  void set(const std::string& key, const std::vector<char>& data) override;
  std::vector<char> get(const std::string& key) override;
  void wait(const std::vector<std::string>& keys) override { wait(keys, timeout_); }
  void wait(const std::vector<std::string>& keys,
            const std::chrono::milliseconds& timeout) override;

 private:
  std::unique_ptr<store::KvServer> server_;  // rank 0 only
  std::unique_ptr<store::KvClient> client_;
  std::chrono::milliseconds timeout_;
};

}  // namespace hvd::bench
