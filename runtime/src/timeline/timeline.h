// SPDX-License-Identifier: Apache-2.0
#pragma once
// TimelineWriter: every rank records what happens to each tensor (negotiation, queueing,
// fusion-buffer copies, the backend's collective) for a Chrome trace, viewable in Perfetto or
// chrome://tracing. Horovod writes one timeline from rank 0; here each rank writes its own
// file (timeline_rank_path()), with timestamps from an epoch the ranks agreed on so the tracks
// line up, and hvdrun (or stop_timeline()) merges them afterwards (timeline_merge.h).
//
// Recording does not format: each event is a few fixed-size words (timestamp, interned name
// id, phase, tensor or group id; timeline_format.h) copied into the calling thread's own ring
// (timeline_ring.h), with no lock. Names are interned once per thread, in a table of its own;
// only a name this thread has not seen takes the writer's name lock. A fused response records
// its tensor list once, as a group, and each phase of it is one event; a cycle's new requests
// begin NEGOTIATE the same way (TimelineGroupBuilder). A thread that makes the same group
// again (the next step of a training loop) reuses it, and finds each tensor's id by comparing
// its name with the one that followed the previous tensor last time, not by hashing it, so
// that a step costs a few events and a name comparison per tensor. A background thread
// appends the raw records to the file; the merge turns them into JSON. When a thread's ring
// is full, events are dropped and counted (the trace gets an EVENTS_DROPPED mark), never
// waited for. A rank killed mid-write loses at most a torn last record (timeline_file.h).

#include <array>
#include <atomic>
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
  /// Whether of_shape(dtype, shape) would equal this, without making it.
  bool is_shape(DataType dtype, const std::vector<int64_t>& shape) const;
};

/// A fused response's tensor list, recorded once by TimelineWriter::group(); a phase begun or
/// ended on it lands on every one of its tensors' tracks. The default value is no group.
struct TimelineGroup {
  uint32_t id = 0;
  bool valid() const { return id != 0; }
};

struct TimelineOptions {
  /// HOROVOD_TIMELINE: the base name; this rank writes
  /// timeline_rank_path(filename, rank, file_tag).
  std::string filename;
  /// HVD_TIMELINE_TAG: the unpredictable part of the rank file's name; may be empty.
  std::string file_tag;
  int rank = 0;
  /// Time zero of the trace, in `clock`'s time: take it on every rank at a moment the ranks
  /// agree on (e.g. right after the bootstrap barrier), so that their tracks line up.
  Clock::TimePoint epoch{};
  /// Source of timestamps; null means the steady clock. Must outlive the writer.
  const Clock* clock = nullptr;
  /// HOROVOD_TIMELINE_MARK_CYCLES: mark_cycle_start() records a CYCLE_START mark.
  bool mark_cycles = false;
  /// Plain events each recording thread's ring holds for the writer thread (rounded up);
  /// beyond this they are dropped and counted.
  size_t queue_capacity = size_t{1} << 14;
  /// The writer thread writes at least this often (sooner when a ring is half full).
  std::chrono::milliseconds flush_interval{100};
};

/// Records one rank's timeline. Recording methods may be called from any thread; they never
/// block on I/O, never wait for another recording thread, and never throw. Errors of the
/// writer thread (disk full) stop the writing and resurface from flush() and close().
class TimelineWriter {
 public:
  /// Creates the rank's file (a header, no events) and starts the writer thread.
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
  /// Records `tensors` once as a group, for begin()/end() on all of them at once: a fused
  /// response has hundreds of tensors and several phases. No group when recording is off.
  TimelineGroup group(const std::vector<std::string>& tensors);
  TimelineGroup group(const std::vector<std::string_view>& tensors);
  /// begin() and end() on every tensor of `group`, with one event each.
  void begin(TimelineGroup group, std::string_view phase);
  /// begin() on every tensor of `group`, with the meta TimelineGroupBuilder::add() gave each
  /// tensor (on this thread) as its args. One event.
  void begin_with_args(TimelineGroup group, std::string_view phase);
  void end(TimelineGroup group, std::string_view phase);
  /// An instant mark across this rank's tracks, e.g. kFatalMark.
  void mark(std::string_view name);
  /// A CYCLE_START mark when options.mark_cycles is on; otherwise nothing.
  void mark_cycle_start();

  /// Blocks until everything recorded before the call is in the file.
  /// Throws the writer thread's error, if any.
  void flush();
  /// Writes what is buffered and stops the writer thread; later records are ignored. Throws
  /// the writer thread's error, if any (once). Idempotent.
  void close();

  /// The file this rank writes.
  const std::string& path() const { return path_; }
  /// Events dropped so far because a ring was full.
  uint64_t dropped() const;

 private:
  friend class TimelineGroupBuilder;
  struct ThreadSlot;  // one recording thread's ring and name caches (timeline.cc)
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

  ThreadSlot* slot();
  ThreadSlot* register_thread();
  uint32_t tensor_id(ThreadSlot& slot, std::string_view tensor);
  // The id of the next tensor of a group being built (ThreadSlot::building), predicted from
  // the one before it; the slot learns the order it sees.
  uint32_t next_group_tensor(ThreadSlot& slot, std::string_view tensor);
  // Records `meta` as the tensor's args when this thread has not recorded exactly that.
  void note_meta(ThreadSlot& slot, uint32_t tensor, DataType dtype,
                 const std::vector<int64_t>& shape);
  void note_meta(ThreadSlot& slot, uint32_t tensor, const TimelineTensorMeta& meta);
  // The group of the tensors in slot.building: one this thread made lately, or a new one.
  TimelineGroup finish_group(ThreadSlot& slot);
  uint32_t name_id(ThreadSlot& slot, std::string_view name);
  // One event on a subject (timeline_format::Subject): the tensor named `*tensor` when given,
  // else `subject_id`.
  void record(char ph, uint8_t subject, uint32_t subject_id, const std::string_view* tensor,
              std::string_view name, const TimelineTensorMeta* meta,
              bool args_from_thread = false) noexcept;
  void record_tensor(char ph, std::string_view tensor, std::string_view name,
                     const TimelineTensorMeta* meta) noexcept;
  template <typename Names>
  TimelineGroup make_group(const Names& tensors) noexcept;
  // Copies one record into the slot's ring; false (and counted) when it was dropped.
  bool push(ThreadSlot& slot, const uint64_t* words, size_t n);
  int64_t now_ns() const;
  void run();
  // Everything recorded so far, as records: new names first, then each ring's events, then
  // the count of dropped events when it grew.
  void collect(std::string& out);
  void encode_new_names_locked(std::string& out);

  const uint64_t serial_;  // tells this writer's thread slots from an older writer's
  const int rank_;
  const Clock::TimePoint epoch_;
  SteadyClock steady_;
  const Clock& clock_;
  const bool mark_cycles_;
  const size_t ring_words_;
  const std::chrono::milliseconds flush_interval_;
  std::string path_;
  std::unique_ptr<TimelineFile> file_;  // writer thread only, after construction

  std::atomic<bool> stopped_{false};         // recording is off once set
  std::atomic<bool> ring_half_full_{false};  // a producer asks the writer to come early
  std::atomic<uint32_t> next_group_{1};

  mutable std::mutex slots_mu_;  // guards slots_ (the list, not the rings' contents)
  std::vector<std::unique_ptr<ThreadSlot>> slots_;

  std::mutex names_mu_;  // guards the tables and written_*
  NameTable tensors_;
  NameTable names_;  // phases and marks
  size_t written_tensors_ = 0;
  size_t written_names_ = 0;

  std::mutex mu_;  // guards what follows
  std::condition_variable wake_writer_;
  std::condition_variable flushed_;
  uint64_t flush_requested_ = 0;
  uint64_t flush_done_ = 0;
  bool stop_ = false;
  bool finished_ = false;
  std::exception_ptr error_;

  uint64_t dropped_reported_ = 0;  // writer thread only
  std::thread thread_;
};

/// Builds a group tensor by tensor, for begin_with_args() on a whole cycle's new requests:
///   TimelineGroupBuilder g(timeline);
///   for (const Request& r : fresh) g.add(r.name, r.dtype, r.shape);
///   timeline.begin_with_args(g.finish(), timeline_phase::kNegotiate);
/// One builder at a time per thread, used on the thread that made it. Records nothing, and
/// finishes with no group, when recording is off.
class TimelineGroupBuilder {
 public:
  explicit TimelineGroupBuilder(TimelineWriter& writer) noexcept;
  TimelineGroupBuilder(const TimelineGroupBuilder&) = delete;
  TimelineGroupBuilder& operator=(const TimelineGroupBuilder&) = delete;

  void add(std::string_view tensor) noexcept;
  /// The dtype and shape become the tensor's args; written only when they differ from what
  /// this thread wrote for the tensor last.
  void add(std::string_view tensor, DataType dtype, const std::vector<int64_t>& shape) noexcept;
  void add(std::string_view tensor, const TimelineTensorMeta& meta) noexcept;
  TimelineGroup finish() noexcept;

 private:
  // Runs `step` on the slot unless the builder is off; an exception turns it off.
  template <typename Step>
  void guarded(Step step) noexcept;

  TimelineWriter& writer_;
  TimelineWriter::ThreadSlot* slot_ = nullptr;  // null: recording is off, or failed
};

}  // namespace hvd::core
