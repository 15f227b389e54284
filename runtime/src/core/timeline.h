// SPDX-License-Identifier: Apache-2.0
#pragma once
// TimelineWriter: every rank records what happens to each tensor (negotiation, queueing,
// fusion-buffer copies, the backend's collective) as a Chrome trace, viewable in Perfetto or
// chrome://tracing. Horovod writes one timeline from rank 0; here each rank writes its own
// file (timeline_rank_path()), with timestamps from an epoch the ranks agreed on so the tracks
// line up, and hvdrun merges them afterwards (timeline_merge.h).
//
// Recording is cheap on the caller's thread: it reads the clock, takes one mutex and copies a
// fixed-size event into a bounded queue (tensor and phase names are interned, so only a name
// seen for the first time allocates). A background thread formats and writes. When the queue
// is full, events are dropped and counted (an EVENTS_DROPPED mark says how many), never waited
// for. The file is valid JSON at every instant, even if the process is killed (timeline_file.h).
//
// Layout of the trace: pid = rank ("rank N"); tid 0 holds instant marks (CYCLE_START, FATAL);
// each tensor gets its own tid, named after the tensor, with B/E events per phase.

#include <array>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include "common/clock.h"
#include "hvd/tensor.h"

namespace hvd::core {

class TimelineFile;

/// Phase names for begin()/end(). The backend's collective uses backend_op_phase().
namespace timeline_phase {
inline constexpr std::string_view kNegotiate = "NEGOTIATE";
inline constexpr std::string_view kQueue = "QUEUE";
inline constexpr std::string_view kMemcpyInFusionBuffer = "MEMCPY_IN_FUSION_BUFFER";
inline constexpr std::string_view kMemcpyOutFusionBuffer = "MEMCPY_OUT_FUSION_BUFFER";
}  // namespace timeline_phase

/// Instant marks.
inline constexpr std::string_view kCycleStartMark = "CYCLE_START";
inline constexpr std::string_view kFatalMark = "FATAL";

/// The phase name of a backend's collective, Horovod-style: ("nccl", "allreduce") ->
/// "NCCL_ALLREDUCE". Allocates: compute once per backend and op, not per event.
std::string backend_op_phase(std::string_view backend, std::string_view op);

/// A tensor's dtype, size and (when known) shape, written as args of a begin event. Fixed size,
/// so that recording copies it and never allocates.
struct TimelineTensorMeta {
  static constexpr size_t kMaxDims = 8;
  DataType dtype = DataType::kFloat32;
  uint64_t num_elements = 0;
  bool has_shape = false;  // false: only the size is written
  uint8_t ndims = 0;
  std::array<int64_t, kMaxDims> dims{};

  static TimelineTensorMeta of_size(DataType dtype, uint64_t num_elements);
  /// A shape with more than kMaxDims dimensions keeps only its size.
  static TimelineTensorMeta of_shape(DataType dtype, const std::vector<int64_t>& shape);
};

struct TimelineOptions {
  /// HOROVOD_TIMELINE: the base name; this rank writes timeline_rank_path(filename, rank).
  std::string filename;
  int rank = 0;
  /// Time zero of the trace, in `clock`'s time: take it on every rank at a moment the ranks
  /// agree on (e.g. right after the bootstrap barrier), so that their tracks line up.
  Clock::TimePoint epoch{};
  /// Source of timestamps; null means the steady clock. Must outlive the writer.
  const Clock* clock = nullptr;
  /// HOROVOD_TIMELINE_MARK_CYCLES: mark_cycle_start() records a CYCLE_START mark.
  bool mark_cycles = false;
  /// Events held for the writer thread; beyond this they are dropped and counted.
  size_t queue_capacity = size_t{1} << 16;
  /// The writer thread writes at least this often (sooner when the queue is half full).
  std::chrono::milliseconds flush_interval{100};
};

/// Records one rank's timeline. Recording methods may be called from any thread; they never
/// block on I/O and never throw. Errors of the writer thread (disk full) stop the writing and
/// resurface from flush() and close().
class TimelineWriter {
 public:
  /// Creates the rank's file (valid, empty trace) and starts the writer thread.
  /// Throws ConfigError when the file cannot be created.
  explicit TimelineWriter(const TimelineOptions& options);
  /// Closes, swallowing errors (call close() to see them).
  ~TimelineWriter();
  TimelineWriter(const TimelineWriter&) = delete;
  TimelineWriter& operator=(const TimelineWriter&) = delete;

  /// Starts `phase` on `tensor`'s track; `meta` becomes the event's args.
  void begin(std::string_view tensor, std::string_view phase);
  void begin(std::string_view tensor, std::string_view phase, const TimelineTensorMeta& meta);
  /// Ends `phase` on `tensor`'s track (phases on one track nest like a stack).
  void end(std::string_view tensor, std::string_view phase);
  /// begin() and end() for many tensors at one timestamp, with one clock read and one lock:
  /// a fused response records each of its phases for hundreds of tensors at once.
  void begin(const std::vector<std::string_view>& tensors, std::string_view phase);
  void end(const std::vector<std::string_view>& tensors, std::string_view phase);
  /// An instant mark across this rank's tracks, e.g. kFatalMark.
  void mark(std::string_view name);
  /// A CYCLE_START mark when options.mark_cycles is on; otherwise nothing.
  void mark_cycle_start();

  /// Blocks until everything recorded before the call is in the file.
  /// Throws the writer thread's error, if any.
  void flush();
  /// Writes what is queued and stops the writer thread; later records are ignored. Throws the
  /// writer thread's error, if any (once). Idempotent.
  void close();

  /// The file this rank writes.
  const std::string& path() const { return path_; }
  /// Events dropped so far because the queue was full.
  uint64_t dropped() const;

 private:
  struct Event {
    int64_t ts_ns;   // since epoch
    uint32_t track;  // tid: 0 for marks, else tensor id + 1
    uint32_t name;   // id in names_
    char ph;         // 'B', 'E' or 'i'
    bool has_meta;
    TimelineTensorMeta meta;
  };
  // Maps names to dense ids; the strings never move, so ids can be resolved later.
  class NameTable {
   public:
    uint32_t intern(std::string_view name);
    size_t size() const { return names_.size(); }
    const std::string& at(size_t id) const { return names_[id]; }

   private:
    std::deque<std::string> names_;
    std::unordered_map<std::string_view, uint32_t> ids_;
  };

  void record(char ph, const std::string_view* tensor, std::string_view name,
              const TimelineTensorMeta* meta) noexcept;
  void record_all(char ph, const std::vector<std::string_view>& tensors,
                  std::string_view name) noexcept;
  int64_t now_ns() const;
  // Queues one event with mu_ held; false (and counted) when the queue is full.
  bool push_locked(int64_t ts, uint32_t track, uint32_t name, char ph,
                   const TimelineTensorMeta* meta);
  void run();
  void sync_names_locked();
  void write_header();
  void write_batch(const std::vector<Event>& batch, size_t first_new_track, uint64_t dropped);
  void format_event(const Event& ev, std::string& out) const;

  const int rank_;
  const Clock::TimePoint epoch_;
  SteadyClock steady_;
  const Clock& clock_;
  const bool mark_cycles_;
  const size_t capacity_;
  const std::chrono::milliseconds flush_interval_;
  std::string path_;
  std::unique_ptr<TimelineFile> file_;  // writer thread only, after construction

  mutable std::mutex mu_;
  std::condition_variable wake_writer_;
  std::condition_variable flushed_;
  std::vector<Event> queue_;  // guarded by mu_
  NameTable tensors_;         // guarded by mu_
  NameTable names_;           // phases and marks; guarded by mu_
  uint64_t dropped_ = 0;      // guarded by mu_
  uint64_t flush_requested_ = 0;
  uint64_t flush_done_ = 0;
  bool stop_ = false;
  bool finished_ = false;
  std::exception_ptr error_;

  // Writer thread only: names already announced, as JSON strings.
  std::vector<std::string> tensor_json_;
  std::vector<std::string> name_json_;
  uint64_t dropped_reported_ = 0;

  std::thread thread_;
};

}  // namespace hvd::core
