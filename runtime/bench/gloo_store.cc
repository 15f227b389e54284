// SPDX-License-Identifier: Apache-2.0
#include "bench/gloo_store.h"

#include "auth/run_secret.h"
#include "hvd/error.h"
#include "hvd/str_cat.h"

namespace hvd::bench {

GlooStore::GlooStore(bootstrap::KvStore& kv, const bootstrap::WorldInfo& world,
                     const std::string& host, std::chrono::milliseconds timeout)
    : timeout_(timeout) {
  // The private server gets its own secret, handed out through the job's bootstrap store (which
  // only the job's ranks reach), so that this bench needs no HVD_RUN_SECRET to run under mpirun.
  const std::string key = "hvd-bench/gloo-store";
  const std::string secret_key = "hvd-bench/gloo-store-secret";
  if (world.rank == 0) {
    const auth::RunSecret secret = auth::RunSecret::generate();
    server_ = std::make_unique<store::KvServer>(host, 0, secret);
    kv.set(secret_key, secret.hex());
    kv.set(key, str_cat(server_->port()));
  }
  kv.barrier(key, timeout);
  const std::string port = kv.get(key, timeout);
  const auth::RunSecret secret = auth::RunSecret::from_hex(kv.get(secret_key, timeout), secret_key);
  client_ = std::make_unique<store::KvClient>(host, static_cast<uint16_t>(std::stoi(port)), secret,
                                              timeout);
}

void GlooStore::set(const std::string& key, const std::vector<char>& data) {
  client_->set(key, std::string(data.begin(), data.end()));
}

std::vector<char> GlooStore::get(const std::string& key) {
  const std::string value = client_->get(key, timeout_);
  return std::vector<char>(value.begin(), value.end());
}

void GlooStore::wait(const std::vector<std::string>& keys,
                     const std::chrono::milliseconds& timeout) {
  client_->wait(keys, timeout);
}

}  // namespace hvd::bench
