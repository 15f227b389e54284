// SPDX-License-Identifier: Apache-2.0
#pragma once
// WhyResponder: answers hvdrun's question "where is this rank?" (hvd/why_protocol.h). A
// handler for the why signal wakes a thread of its own, which sends this rank's libhvd state,
// its Python stack dump (when Python's faulthandler wrote one) or else its native stack, to the
// run's store: the authenticated channel the bootstrap used, opened for the answer and closed
// after it. Nothing listens, and a rank never answers anyone but the holder of the run secret.
//
// The coordinator's stall reports (control::StallInspector) go out the same way
// (publish_stall), so that hvdrun learns of a stall without asking every rank every minute.
//
// One responder per process: the signal handler needs a process-wide wake-up descriptor.

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "env/env.h"
#include "diag/rank_snapshot.h"
#include "net/socket.h"

namespace hvd::diag {

class WhyResponder {
 public:
  using Snapshot = std::function<QueueView()>;
  /// Installs the signal handler (chaining to the one there before, Python's faulthandler) and
  /// starts the thread. `snapshot` is called on that thread; stop() before what it reads goes.
  WhyResponder(int rank, EnvMap env, Snapshot snapshot);
  ~WhyResponder();
  WhyResponder(const WhyResponder&) = delete;
  WhyResponder& operator=(const WhyResponder&) = delete;

  /// Restores the previous handler and joins the thread. Idempotent; any thread but its own.
  void stop();
  /// Queues the coordinator's stall report (JSON) for the store; never blocks the caller.
  void publish_stall(std::string json);

 private:
  void run();
  void answer();
  void send(const std::string& key, const std::string& value);
  std::string answer_json();

  int rank_;
  EnvMap env_;
  Snapshot snapshot_;
  net::Fd wake_read_;
  net::Fd wake_write_;
  std::atomic<bool> stopping_{false};
  std::mutex mutex_;  // guards stall_json_
  std::string stall_json_;
  std::thread thread_;
};

/// A responder for this rank when hvdrun's store is in `env` (HVD_STORE_ADDR); null otherwise
/// (PMIx or MPI bootstraps without hvdrun: nobody to answer).
std::shared_ptr<WhyResponder> make_why_responder(int rank, const EnvMap& env,
                                                 WhyResponder::Snapshot snapshot);

/// Owns a responder for libhvd's instance and stops it first when the instance goes (before the
/// runtime its snapshot reads). Move-only.
class WhyResponderScope {
 public:
  WhyResponderScope() = default;
  explicit WhyResponderScope(std::shared_ptr<WhyResponder> r) : responder_(std::move(r)) {}
  WhyResponderScope(WhyResponderScope&&) noexcept = default;
  WhyResponderScope& operator=(WhyResponderScope&& other) noexcept;
  ~WhyResponderScope();

 private:
  std::shared_ptr<WhyResponder> responder_;
};

}  // namespace hvd::diag
