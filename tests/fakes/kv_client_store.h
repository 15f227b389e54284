// SPDX-License-Identifier: Apache-2.0
#pragma once
// KvClientStore: a bootstrap::KvStore over one store::KvClient, for tests that run ranks as
// threads against an in-process store::KvServer. Values are visible at once (like hvdrun's
// RendezvousStore); barrier(name) counts arrivals with ADD and waits for a "done" key that
// the last arrival sets. One instance per rank thread (KvClient is not thread-safe).

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>

#include "auth/run_secret.h"
#include "bootstrap/kv_store.h"
#include "hvd/str_cat.h"
#include "store/kv_client.h"
#include "store/kv_server.h"

namespace hvd::test {

/// One fixed secret for a test binary's in-process stores: tests that do not test
/// authentication need only agree on it. Fixed rather than drawn, so that ranks in processes
/// forked before its first use have the same one.
inline const auth::RunSecret& test_secret() {
  static const auth::RunSecret secret = auth::RunSecret::from_hex(
      "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff", "test secret");
  return secret;
}

/// A store on 127.0.0.1, any port, serving clients that prove test_secret().
inline std::unique_ptr<store::KvServer> test_store_server() {
  return std::make_unique<store::KvServer>("127.0.0.1", 0, test_secret());
}

class KvClientStore final : public bootstrap::KvStore {
 public:
  /// Connects to a store on 127.0.0.1:port for one rank of a run of `size` ranks, proving
  /// `secret` (by default test_secret(), which test_store_server() also uses).
  KvClientStore(uint16_t port, int size,
                std::chrono::milliseconds connect_timeout = std::chrono::milliseconds(20000),
                const auth::RunSecret& secret = test_secret())
      : client_("127.0.0.1", port, secret, connect_timeout), size_(size) {}

  void set(const std::string& key, const std::string& value) override {
    client_.set("kv/" + key, value);
  }
  std::string get(const std::string& key, std::chrono::milliseconds timeout) override {
    return client_.get("kv/" + key, timeout);
  }
  void barrier(const std::string& name, std::chrono::milliseconds timeout) override {
    const std::string base = str_cat("barrier/", name, "/", rounds_[name]++);
    if (client_.add(base + "/count", 1) == size_) client_.set(base + "/done", "1");
    client_.get(base + "/done", timeout);
  }
  /// 127.0.0.1 in these tests, as for hvdrun's store: what a TCP transport advertises.
  std::string reachable_address() const override { return client_.local_address(); }

 private:
  store::KvClient client_;
  int64_t size_;
  std::map<std::string, int> rounds_;
};

}  // namespace hvd::test
