// SPDX-License-Identifier: Apache-2.0
#include "core/active_timeline.h"

#include <chrono>
#include <exception>

#include "hvd/error.h"
#include "hvd/str_cat.h"

namespace hvd::core {
namespace {

std::unique_ptr<TimelineWriter> make_timeline(TimelineOptions options, int rank) {
  if (options.filename.empty()) return nullptr;
  options.rank = rank;
  options.epoch = std::chrono::steady_clock::now();
  return std::make_unique<TimelineWriter>(options);
}

}  // namespace

ActiveTimeline::ActiveTimeline(const TimelineOptions& options, int rank)
    : options_(options), rank_(rank) {
  if (std::unique_ptr<TimelineWriter> t = make_timeline(options, rank)) {
    current_ = t.get();
    base_ = options.filename;
    writers_.push_back(std::move(t));
  }
}

Status ActiveTimeline::start(const std::string& path, bool mark_cycles) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (TimelineWriter* running = current_.load()) {
    return Status::error(ErrorCode::kUsage,
                         str_cat("start_timeline: this rank already writes a timeline to ",
                                 running->path(), "; stop_timeline() first"));
  }
  if (path.empty()) return Status::error(ErrorCode::kUsage, "start_timeline: an empty path");
  try {
    TimelineOptions options = options_;
    options.filename = path;
    options.mark_cycles = mark_cycles;
    writers_.push_back(make_timeline(options, rank_));
  } catch (...) {
    return Status::from_exception(std::current_exception());
  }
  current_ = writers_.back().get();
  from_api_ = true;
  base_ = path;
  return Status();
}

Status ActiveTimeline::stop(std::string* base, bool* from_api) {
  std::lock_guard<std::mutex> lock(mutex_);
  TimelineWriter* running = current_.exchange(nullptr);
  if (running == nullptr) {
    return Status::error(ErrorCode::kUsage, "stop_timeline: no timeline is being written");
  }
  *from_api = from_api_;
  from_api_ = false;
  *base = base_;
  try {
    running->close();  // what the loop records into it from now on is ignored
  } catch (...) {
    return Status::from_exception(std::current_exception());
  }
  return Status();
}

void ActiveTimeline::close_at_end() noexcept {
  if (TimelineWriter* timeline = current_.load()) {
    try {
      timeline->close();
    } catch (const std::exception&) {
      // A timeline that could not be written must not turn a finished run into a failure.
    }
  }
}

}  // namespace hvd::core
