// SPDX-License-Identifier: Apache-2.0
#include "exec/why_service.h"

#include "files/atomic_file.h"
#include "hvd/error.h"
#include "hvd/why_protocol.h"
#include "store/kv_client.h"

namespace hvd::launcher::exec {
namespace {

constexpr std::chrono::seconds kTick{1};
constexpr std::chrono::seconds kReconnect{5};
constexpr std::chrono::milliseconds kConnectTimeout{2000};
// A rank stopped this long is a stall (a debugger's breakpoint a moment ago is not).
constexpr std::chrono::seconds kStoppedGrace{3};

double seconds(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

// A verdict that still shows a stall: some rank waits in a collective, or is stopped.
bool still_stalled(const why::Verdict& v) {
  if (!v.culprit.ranks.empty()) return true;
  for (const why::RankReport& r : v.ranks) {
    if (!r.pending.empty()) return true;
  }
  return false;
}

}  // namespace

WhyService::WhyService(WhyServiceOptions options, SupervisorInbox& inbox)
    : options_(std::move(options)), inbox_(inbox) {
  for (int r = 0; r < options_.ranks; ++r) targets_.push_back(why::CollectTarget{r, -1});
  thread_ = std::thread([this] { run(); });
}

WhyService::~WhyService() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void WhyService::ask(std::string occasion) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    asked_.push_back(std::move(occasion));
  }
  cv_.notify_all();
}

void WhyService::set_pids(const std::vector<std::pair<int, pid_t>>& pids) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& [rank, pid] : pids) {
    if (rank >= 0 && rank < static_cast<int>(targets_.size())) targets_[static_cast<size_t>(rank)].pid = pid;
  }
}

void WhyService::run() {
  for (;;) {
    std::vector<std::string> asked;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      cv_.wait_for(lock, kTick, [this] { return stopping_ || !asked_.empty(); });
      if (stopping_) return;
      asked.swap(asked_);
    }
    // Whatever goes wrong here must not end hvdrun: the job runs on without a verdict.
    try {
      if (!asked.empty()) give_verdict(asked.front());
      const bool reported = stall_reported();  // read (and cleared) whatever rank_stopped says
      if (reported || rank_stopped()) on_stall();
      check_shutdown();
    } catch (const std::exception& e) {
      inbox_.post_message(str_cat("hvdrun why: no verdict: ", e.what()));
    }
  }
}

why::Verdict WhyService::give_verdict(const std::string& occasion) {
  std::vector<why::CollectTarget> targets;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    targets = targets_;
  }
  const Clock::time_point start = Clock::now();
  why::Verdict v = why::make_verdict(occasion, why::collect(targets, options_.collect),
                                     seconds(Clock::now() - start));
  inbox_.post_message(why::render_screen(v));
  if (options_.job != nullptr) options_.job->write_verdict(why::to_json(v).dump(2));
  return v;
}

bool WhyService::stall_reported() {
  if (options_.collect.store_host.empty() || !options_.collect.secret) return false;
  if (!client_) {
    if (Clock::now() < next_connect_) return false;
    next_connect_ = Clock::now() + kReconnect;
    try {
      client_.emplace(options_.collect.store_host, options_.collect.store_port,
                      *options_.collect.secret, kConnectTimeout);
    } catch (const Error&) {
      return false;
    }
  }
  try {
    if (!client_->try_get(hvd::why::kWhyStallKey)) return false;
    client_->del(hvd::why::kWhyStallKey);
    return true;
  } catch (const Error&) {
    client_.reset();  // the store went away (the job is ending): try again later
    return false;
  }
}

bool WhyService::rank_stopped() {
  std::vector<why::CollectTarget> targets;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    targets = targets_;
  }
  bool stopped = false;
  for (const why::CollectTarget& t : targets) {
    stopped = stopped || (t.pid > 0 && why::process_condition(t.pid) == why::RankCondition::kStopped);
  }
  const Clock::time_point now = Clock::now();
  if (!stopped) {
    stopped_since_.reset();
    return false;
  }
  if (!stopped_since_) stopped_since_ = now;
  if (now - *stopped_since_ < kStoppedGrace) return false;
  // Reported like the coordinator's warnings: once per warning period.
  return !stall_since_ || seconds(now - last_report_) >= options_.warning_s;
}

void WhyService::on_stall() {
  const Clock::time_point now = Clock::now();
  if (!stall_since_) stall_since_ = now;
  last_report_ = now;
  give_verdict("stall");
}

void WhyService::check_shutdown() {
  if (!stall_since_) return;
  const Clock::time_point now = Clock::now();
  // The coordinator reports a stalled tensor once per warning period: silence for two periods
  // means it ran.
  if (seconds(now - last_report_) > 2 * options_.warning_s + 5) {
    stall_since_.reset();
    return;
  }
  if (options_.shutdown_s <= 0 || seconds(now - *stall_since_) < options_.shutdown_s) return;
  const why::Verdict v = give_verdict("stall shutdown");
  if (!still_stalled(v)) {
    stall_since_.reset();
    return;
  }
  std::string where = options_.verdict_path;
  try {
    files::write_file_atomically(options_.verdict_path, why::to_json(v).dump(2), 0644);
  } catch (const Error& e) {
    where = str_cat("nowhere (", e.what(), ")");
  }
  inbox_.post_stop(SupervisorInbox::Stop{
      kExitHung, "the hung job",
      str_cat("the job has hung for ", static_cast<long>(seconds(now - *stall_since_)),
              " s (stall shutdown time ", options_.shutdown_s, " s); verdict written to ", where,
              "; stopping it (exit ", kExitHung, ")")});
  stall_since_.reset();
}

}  // namespace hvd::launcher::exec
