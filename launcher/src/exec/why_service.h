// SPDX-License-Identifier: Apache-2.0
#pragma once
// WhyService: hvdrun's side of the verdict (`hvdrun why`, SIGQUIT, the stall warning), on a
// thread of its own so that collecting (up to why::CollectOptions::timeout) never holds up the
// supervisor's output and signals.
//  - ask() (SIGQUIT; `hvdrun why` sends it): collect, say the verdict on stderr, and write it to
//    the job's folder where `hvdrun why` reads it;
//  - once a second it looks for the coordinator's stall report in the store
//    (hvd/why_protocol.h), and for a rank of this host that has been stopped (SIGSTOP) for
//    kStoppedGrace: a stopped rank blocks the coordinator's negotiation, so no report would
//    come. Each report gets a verdict on stderr (at most one per warning period for a stop);
//  - when reports have kept coming for the stall shutdown time and the verdict still shows a
//    stall, it writes the verdict as JSON beside the job's output and stops the job with
//    kExitHung, so that --max-restarts or a requeue can carry on.

#include <sys/types.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "exec/supervisor_inbox.h"
#include "store/kv_client.h"
#include "why/collector.h"
#include "why/job_dir.h"
#include "why/verdict.h"

namespace hvd::launcher::exec {

/// hvdrun's exit code when it stopped a hung job (stall shutdown).
inline constexpr int kExitHung = 7;

struct WhyServiceOptions {
  why::CollectOptions collect;
  int ranks = 0;
  double warning_s = 60;   // the stall check's period: reports repeat this often
  double shutdown_s = 0;   // 0: never stop the job
  std::string verdict_path;          // the JSON written when the job is stopped
  const why::JobDir* job = nullptr;  // where `hvdrun why` reads; may be null
};

class WhyService {
 public:
  WhyService(WhyServiceOptions options, SupervisorInbox& inbox);
  ~WhyService();
  WhyService(const WhyService&) = delete;
  WhyService& operator=(const WhyService&) = delete;

  /// Any thread: give a verdict now (`occasion` names who asked).
  void ask(std::string occasion);
  /// Any thread: the rank processes of this host, (rank, pid).
  void set_pids(const std::vector<std::pair<int, pid_t>>& pids);

 private:
  using Clock = std::chrono::steady_clock;
  void run();
  why::Verdict give_verdict(const std::string& occasion);
  bool stall_reported();
  bool rank_stopped();
  void on_stall();
  void check_shutdown();

  WhyServiceOptions options_;
  SupervisorInbox& inbox_;
  std::mutex mutex_;  // guards targets_, asked_, stopping_
  std::condition_variable cv_;
  std::vector<why::CollectTarget> targets_;
  std::vector<std::string> asked_;
  bool stopping_ = false;
  // The service thread's own: the store client and the stall's timing.
  std::optional<store::KvClient> client_;
  Clock::time_point next_connect_{};
  std::optional<Clock::time_point> stall_since_;
  Clock::time_point last_report_{};
  std::optional<Clock::time_point> stopped_since_;  // a rank of this host is stopped
  std::thread thread_;
};

}  // namespace hvd::launcher::exec
