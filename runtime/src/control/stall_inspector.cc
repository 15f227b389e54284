// SPDX-License-Identifier: Apache-2.0
#include "control/stall_inspector.h"

#include <algorithm>
#include <chrono>
#include <sstream>
#include <utility>

#include "hvd/env_keys.h"
#include "hvd/error.h"
#include "hvd/str_cat.h"

namespace hvd::control {
namespace {

Clock::Duration seconds(double s) {
  return std::chrono::duration_cast<Clock::Duration>(std::chrono::duration<double>(s));
}

void validate(const StallConfig& c) {
  if (!(c.warning_seconds > 0)) {
    throw ConfigError(str_cat(env::kStallCheckTime, "=", c.warning_seconds,
                              ": the stall warning time must be positive"));
  }
  if (!(c.shutdown_seconds >= 0)) {
    throw ConfigError(str_cat(env::kStallShutdownTime, "=", c.shutdown_seconds,
                              ": the stall shutdown time must be 0 (off) or positive"));
  }
  // Horovod silently raises a too-small shutdown time; an explicit error says more.
  if (c.shutdown_seconds > 0 && c.shutdown_seconds < c.warning_seconds) {
    throw ConfigError(str_cat(env::kStallShutdownTime, "=", c.shutdown_seconds, " is less than ",
                              env::kStallCheckTime, "=", c.warning_seconds,
                              ": ranks would be shut down before any stall warning"));
  }
}

}  // namespace

StallInspector::StallInspector(int world_size, StallConfig config, const Clock& clock)
    : world_size_(world_size), config_(config), clock_(clock) {
  HVD_CHECK(world_size > 0, "world size ", world_size);
  validate(config_);
}

void StallInspector::record_ready(std::string_view tensor, int rank) {
  record_ready(tensor, rank, clock_.now());
}

void StallInspector::record_ready(std::string_view tensor, int rank, Clock::TimePoint now) {
  HVD_CHECK(rank >= 0 && rank < world_size_, "rank ", rank, " of ", world_size_, " for tensor ",
            tensor);
  auto it = pending_.find(tensor);
  if (it == pending_.end()) {
    Entry e;
    e.first_seen = now;
    e.ready.assign(static_cast<size_t>(world_size_), false);
    it = pending_.emplace(std::string(tensor), std::move(e)).first;
    observe_period(it->first, now);
  }
  Entry& e = it->second;
  if (!e.ready[static_cast<size_t>(rank)]) {
    e.ready[static_cast<size_t>(rank)] = true;
    ++e.ready_count;
  }
}

void StallInspector::record_done(std::string_view tensor) {
  const auto it = pending_.find(tensor);
  if (it != pending_.end()) pending_.erase(it);
}

void StallInspector::observe_period(const std::string& name, Clock::TimePoint now) {
  if (config_.period_multiple <= 0) return;
  if (last_first_seen_.size() >= kMaxPeriodNames) last_first_seen_.clear();
  auto [it, fresh] = last_first_seen_.try_emplace(name, now);
  if (fresh) return;
  const double sample = std::chrono::duration<double>(now - it->second).count();
  it->second = now;
  // A maximum that decays slowly: one fast step does not make the next slow one a stall.
  period_s_ = std::max(sample, period_s_ * 0.95);
  ++period_samples_;
}

double StallInspector::threshold_seconds() const {
  const double period = step_period_seconds();
  if (config_.period_multiple <= 0 || period <= 0) return config_.warning_seconds;
  return std::min(config_.warning_seconds,
                  std::max(config_.floor_seconds, config_.period_multiple * period));
}

StallReport StallInspector::check(Clock::TimePoint now) {
  const Clock::Duration warning = seconds(config_.warning_seconds);
  const Clock::Duration shutdown = seconds(config_.shutdown_seconds);
  StallReport report;
  report.threshold_seconds = threshold_seconds();
  const Clock::Duration threshold = seconds(report.threshold_seconds);
  for (auto& [name, e] : pending_) {
    if (e.ready_count == world_size_) continue;  // ready everywhere: about to run, not a stall
    const Clock::Duration waited = now - e.first_seen;
    if (config_.shutdown_seconds > 0 && waited > shutdown) report.shutdown = true;
    if (waited <= threshold) continue;
    if (e.warned && now - e.last_warned < warning) continue;
    e.warned = true;
    e.last_warned = now;
    StalledTensor s{name, {}, waited};
    for (int r = 0; r < world_size_; ++r) {
      if (!e.ready[static_cast<size_t>(r)]) s.missing_ranks.push_back(r);
    }
    report.stalled.push_back(std::move(s));
  }
  return report;
}

std::string format_stall_warning(const std::vector<StalledTensor>& stalled,
                                 double warning_seconds) {
  if (stalled.empty()) return {};
  std::ostringstream out;
  out << "One or more tensors were submitted to be reduced, gathered or broadcast by a subset of "
         "ranks and are waiting for the remainder of ranks for more than "
      << warning_seconds
      << " seconds. This may indicate that different ranks are trying to submit different "
         "tensors or that only a subset of ranks is submitting tensors, which will cause "
         "deadlock.";
  for (const StalledTensor& s : stalled) {
    out << "\n[missing ranks: ";
    for (size_t i = 0; i < s.missing_ranks.size(); ++i) {
      out << (i ? ", " : "") << s.missing_ranks[i];
    }
    out << "] tensor: " << s.name;
  }
  return out.str();
}

}  // namespace hvd::control
