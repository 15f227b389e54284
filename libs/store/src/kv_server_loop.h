// SPDX-License-Identifier: Apache-2.0
#pragma once
// KvServer::Loop: the state the store's serving thread owns, and its steps. Private to the
// store: kv_server.cc runs the poll rounds and serves requests, kv_server_admission.cc
// accepts connections and authenticates them.

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "auth/run_secret.h"
#include "kv_connection.h"
#include "kv_table.h"
#include "net/socket.h"
#include "store/kv_protocol.h"
#include "store/kv_server.h"
#include "store/store_limits.h"

namespace hvd::store {

using Clock = std::chrono::steady_clock;
using Connection = KvConnection;

class KvServer::Loop {
 public:
  Loop(const std::string& bind_addr, uint16_t port, const auth::RunSecret& secret,
       const StoreLimits& limits, LogSink log);

  uint16_t port() const { return port_; }
  StoreStats stats() const {
    const std::lock_guard<std::mutex> lock(stats_mu_);
    return stats_;
  }

  void stop();

 private:
  // The thread body. Errors outside any one connection (poll itself failing) must not end
  // the thread: clients would hang until their timeouts, so back off and keep serving.
  void run() noexcept;

  // One poll() round: wake-up fd, listening socket, every connection. Returns false on stop().
  bool run_cycle();

  // Until the nearest WAIT deadline, authentication deadline or end of an accept pause.
  int poll_timeout_ms();

  // Before the proof, one byte more than the response: enough to see a peer say too much.
  size_t input_limit(const Connection& c) const;

  // The oldest connection still authenticating, dropping stale entries from the queue's front.
  Connection* oldest_unauthenticated();

  // Closes the oldest unauthenticated connection, unless it is younger than the eviction grace
  // (it may be a rank that has not been scheduled to answer yet). Returns whether one was closed.
  bool evict_oldest();

  void accept_clients();

  void add_connection(int fd);

  void log_cap_once();

  void expire_unauthenticated(Clock::time_point now);

  // Any exception here concerns this connection alone (bad frame, allocation for its request):
  // drop it and carry on with the others.
  void service(Connection& c, short revents);

  // The response is all an unauthenticated peer may send: once it is in, check it; more than
  // it, or a wrong MAC, closes the connection with no answer.
  void authenticate(Connection& c);

  // Never throws: a failed send marks the connection dead, because this also runs for clients
  // other than the one whose request is being served (a SET answering someone's WAIT).
  void flush(Connection& c);

  // Carries out the complete frames in c.in, in order, until one parks or the reply backlog
  // is too long. Throws BootstrapError on a malformed or oversized frame.
  void pump(Connection& c);

  void deliver_finished_waits();

  void pump_ready();

  void send_reply(Connection& c, const Reply& reply);

  void drop(Connection& c);

  // Erases dropped connections, publishes the counters.
  void end_cycle();

  const auth::RunSecret secret_;  // Acceptors hold a reference to it
  StoreLimits limits_;
  LogSink log_;
  KvTable table_;
  net::Fd listen_fd_;
  net::Fd wake_fd_;
  uint16_t port_;
  std::thread thread_;
  std::mutex stop_mu_;
  std::atomic<bool> stopping_{false};
  mutable std::mutex stats_mu_;
  StoreStats stats_;
  // Everything below belongs to the serving thread.
  uint64_t next_id_ = 1;
  std::map<uint64_t, Connection> conns_;  // node-based: Connection& stays valid until erased
  std::deque<uint64_t> unauthenticated_;  // in accept order; may name closed or proven ones
  size_t open_ = 0;
  size_t unauthenticated_count_ = 0;
  size_t stats_authenticated_ = 0;
  size_t stats_rejected_ = 0;
  size_t stats_evicted_ = 0;
  size_t stats_turned_away_ = 0;
  bool cap_logged_ = false;
  std::vector<uint64_t> ready_;  // connections whose WAIT ended: they may have input queued
  Clock::time_point accept_paused_until_{};
};

}  // namespace hvd::store
