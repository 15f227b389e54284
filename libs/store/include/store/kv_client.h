// SPDX-License-Identifier: Apache-2.0
#pragma once
// A rank's connection to the rendezvous store (store/kv_server.h, protocol in
// store/kv_protocol.h).
//
// Every call has a client-side deadline: the server-side timeout (if any) plus a reply
// margin, so that a dead or hung server ends a call with TimeoutError or BootstrapError and
// never hangs the rank. After such a failure the connection's state is unknown (a late reply
// could still arrive), so the client closes it and every later call throws BootstrapError.

#include <chrono>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "auth/run_secret.h"
#include "net/socket.h"
#include "store/kv_protocol.h"

namespace hvd::store {

/// How long a reply may take beyond the request's own timeout before the server is
/// considered hung.
inline constexpr std::chrono::milliseconds kDefaultReplyMargin{30000};

/// One connection to the store. Not thread-safe: give each thread its own client.
class KvClient {
 public:
  /// Connects, retrying while the server is not listening yet, and proves `secret` to the
  /// server (and the server to us) within connect_timeout. Throws TimeoutError or
  /// BootstrapError naming host:port; BootstrapError when either side's proof fails.
  KvClient(const std::string& host, uint16_t port, const auth::RunSecret& secret,
           std::chrono::milliseconds connect_timeout,
           std::chrono::milliseconds reply_margin = kDefaultReplyMargin);

  /// Creates or replaces key. Throws BootstrapError (including for a key or value over the
  /// protocol's limits) or TimeoutError.
  void set(const std::string& key, const std::string& value);

  /// Waits up to `timeout` for key to exist, then returns its value. Throws TimeoutError
  /// naming the key and the timeout.
  std::string get(const std::string& key, std::chrono::milliseconds timeout);

  /// The value of key, or nullopt when it does not exist (absence, not failure). Never waits
  /// for the key.
  std::optional<std::string> try_get(const std::string& key);

  /// Waits up to `timeout` until every key exists. Throws TimeoutError naming the keys still
  /// missing.
  void wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout);

  /// Deletes key; returns whether it existed.
  bool del(const std::string& key);

  /// Atomically adds delta to the counter at key (absent = 0) and returns the new value.
  /// Throws BootstrapError when the key holds something that is not a counter.
  int64_t add(const std::string& key, int64_t delta);

  /// A round trip that changes nothing: checks that the server is alive.
  void ping();

  /// "host:port", for messages.
  const std::string& endpoint() const { return endpoint_; }
  /// This end's address of the connection to the store (e.g. "10.1.2.3"): an address of this
  /// host that the store's host can reach, and so usually the other ranks too. Empty if unknown.
  std::string local_address() const;

 private:
  Reply call(const Request& request, std::chrono::milliseconds server_time,
             std::initializer_list<ReplyStatus> expected);

  std::string endpoint_;
  std::chrono::milliseconds reply_margin_;
  net::Fd fd_;
};

/// Connects to the store named by HVD_STORE_ADDR and HVD_STORE_PORT in `env`, proving the
/// secret in HVD_RUN_SECRET, within `timeout`, which also caps the reply margin. Throws
/// BootstrapError naming the variable that is missing or malformed.
KvClient connect_from_env(const std::map<std::string, std::string>& env,
                          std::chrono::milliseconds timeout);

}  // namespace hvd::store
