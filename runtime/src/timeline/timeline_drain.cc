// SPDX-License-Identifier: Apache-2.0
// The writer thread's side of TimelineWriter: it drains every recording thread's ring, with the
// names interned since, into the file, at each flush interval, flush() and close().
#include <exception>
#include <mutex>
#include <string>
#include <utility>

#include "hvd/error.h"
#include "timeline/timeline.h"
#include "timeline/timeline_file.h"
#include "timeline/timeline_record_builder.h"
#include "timeline/timeline_thread_slot.h"
#include "timeline_merge/timeline_format.h"

namespace hvd::core {

namespace fmt = timeline_format;

void TimelineWriter::flush() {
  std::unique_lock<std::mutex> lock(mu_);
  if (!finished_) {
    const uint64_t target = ++flush_requested_;
    wake_writer_.notify_one();
    flushed_.wait(lock, [&] { return flush_done_ >= target || finished_; });
  }
  if (error_) std::rethrow_exception(error_);
}

void TimelineWriter::close() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
    stopped_.store(true);
  }
  wake_writer_.notify_one();
  if (thread_.joinable()) thread_.join();
  std::exception_ptr error;
  {
    std::lock_guard<std::mutex> lock(mu_);
    error = std::exchange(error_, nullptr);
  }
  if (error) std::rethrow_exception(error);
}

uint64_t TimelineWriter::dropped() const {
  std::lock_guard<std::mutex> lock(slots_mu_);
  uint64_t total = 0;
  for (const auto& s : slots_) total += s->dropped.load(std::memory_order_relaxed);
  return total;
}

void TimelineWriter::run() {
  std::string records;
  bool failed = false;
  for (;;) {
    uint64_t generation = 0;
    bool stopping = false;
    {
      std::unique_lock<std::mutex> lock(mu_);
      wake_writer_.wait_for(lock, flush_interval_, [&] {
        return stop_ || flush_requested_ != flush_done_ ||
               ring_half_full_.load(std::memory_order_relaxed);
      });
      ring_half_full_.store(false, std::memory_order_relaxed);
      generation = flush_requested_;
      stopping = stop_;
    }
    if (!failed) {
      try {
        records.clear();
        collect(records);
        if (!records.empty()) file_->append(records);
        if (stopping) file_->close();
      } catch (...) {  // surfaces from flush()/close(); recording goes on, unwritten
        failed = true;
        std::lock_guard<std::mutex> lock(mu_);
        error_ = std::current_exception();
      }
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      flush_done_ = generation;
      finished_ = stopping;
    }
    flushed_.notify_all();
    if (stopping) return;
  }
}

void TimelineWriter::collect(std::string& out) {
  // Rings first, names after: every name an event in the rings refers to was interned before
  // the event was pushed, so it is in the tables by now and lands in the file no later.
  std::string events;
  uint64_t dropped_total = 0;
  {
    std::lock_guard<std::mutex> lock(slots_mu_);
    for (const auto& s : slots_) {
      s->ring.drain(events);
      dropped_total += s->dropped.load(std::memory_order_relaxed);
    }
  }
  {
    std::lock_guard<std::mutex> lock(names_mu_);
    encode_new_names_locked(out);
  }
  out += events;
  if (dropped_total > dropped_reported_) {
    dropped_reported_ = dropped_total;
    fmt::RecordBuilder<fmt::record_words(sizeof(fmt::DroppedBody))> r(fmt::RecordKind::kDropped, 0);
    r.put(fmt::DroppedBody{now_ns(), dropped_total});
    out.append(reinterpret_cast<const char*>(r.words()), r.size() * fmt::kWordBytes);
  }
}

void TimelineWriter::encode_new_names_locked(std::string& out) {
  for (; written_tensors_ < tensors_.size(); ++written_tensors_) {
    fmt::encode_name(fmt::RecordKind::kTensorName, static_cast<uint32_t>(written_tensors_),
                     tensors_.at(written_tensors_), out);
  }
  for (; written_names_ < names_.size(); ++written_names_) {
    fmt::encode_name(fmt::RecordKind::kPhaseName, static_cast<uint32_t>(written_names_),
                     names_.at(written_names_), out);
  }
}

}  // namespace hvd::core
