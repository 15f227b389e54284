// SPDX-License-Identifier: Apache-2.0
#include "core/timeline.h"

#include <cctype>
#include <charconv>
#include <utility>

#include <nlohmann/json.hpp>

#include "core/timeline_file.h"
#include "core/timeline_merge.h"
#include "hvd/error.h"
#include "hvd/str_cat.h"

namespace hvd::core {
namespace {

// Names longer than this are cut in the trace (not in the lookup), which keeps every event
// well inside one page of the file (see timeline_file.h).
constexpr size_t kMaxNameBytes = 256;
constexpr std::string_view kDroppedMark = "EVENTS_DROPPED";

// A name as a JSON string literal; invalid UTF-8 becomes U+FFFD rather than an invalid file.
std::string json_string(std::string_view name) {
  std::string cut(name.substr(0, kMaxNameBytes));
  if (name.size() > kMaxNameBytes) cut += "...";
  return nlohmann::json(cut).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

template <typename Int>
void append_int(std::string& out, Int v) {
  char buf[24];
  const auto res = std::to_chars(buf, buf + sizeof(buf), v);
  out.append(buf, res.ptr);
}

// Nanoseconds as Chrome's microseconds, with three decimals.
void append_ts(std::string& out, int64_t ns) {
  if (ns < 0) {
    out.push_back('-');
    ns = -ns;
  }
  append_int(out, ns / 1000);
  const int64_t frac = ns % 1000;
  out.push_back('.');
  out.push_back(static_cast<char>('0' + frac / 100));
  out.push_back(static_cast<char>('0' + frac / 10 % 10));
  out.push_back(static_cast<char>('0' + frac % 10));
}

std::string metadata_event(std::string_view kind, int pid, int tid, std::string_view arg,
                           const std::string& value) {
  std::string out = str_cat(R"({"name":")", kind, R"(","ph":"M","pid":)", pid);
  if (tid >= 0) out += str_cat(R"(,"tid":)", tid);
  return out + str_cat(R"(,"args":{")", arg, R"(":)", value, "}}");
}

}  // namespace

std::string backend_op_phase(std::string_view backend, std::string_view op) {
  std::string out;
  out.reserve(backend.size() + op.size() + 1);
  for (char c : backend)
    out.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
  out.push_back('_');
  for (char c : op) out.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
  return out;
}

TimelineTensorMeta TimelineTensorMeta::of_size(DataType dtype, uint64_t num_elements) {
  TimelineTensorMeta m;
  m.dtype = dtype;
  m.num_elements = num_elements;
  return m;
}

TimelineTensorMeta TimelineTensorMeta::of_shape(DataType dtype, const std::vector<int64_t>& shape) {
  TimelineTensorMeta m;
  m.dtype = dtype;
  m.num_elements = 1;
  for (int64_t d : shape) m.num_elements *= static_cast<uint64_t>(d < 0 ? 0 : d);
  if (shape.size() <= kMaxDims) {
    m.has_shape = true;
    m.ndims = static_cast<uint8_t>(shape.size());
    for (size_t i = 0; i < shape.size(); ++i) m.dims[i] = shape[i];
  }
  return m;
}

uint32_t TimelineWriter::NameTable::intern(std::string_view name) {
  const auto it = ids_.find(name);
  if (it != ids_.end()) return it->second;
  const auto id = static_cast<uint32_t>(names_.size());
  names_.emplace_back(name);
  ids_.emplace(names_.back(), id);  // keyed by the stored copy, which never moves
  return id;
}

TimelineWriter::TimelineWriter(const TimelineOptions& options)
    : rank_(options.rank),
      epoch_(options.epoch),
      clock_(options.clock ? *options.clock : steady_),
      mark_cycles_(options.mark_cycles),
      capacity_(options.queue_capacity),
      flush_interval_(options.flush_interval),
      path_(timeline_rank_path(options.filename, options.rank)) {
  if (options.filename.empty()) throw ConfigError("timeline: empty file name");
  HVD_CHECK(capacity_ >= 2, "timeline queue capacity ", capacity_);
  file_ = std::make_unique<TimelineFile>(path_);
  write_header();
  queue_.reserve(capacity_);
  thread_ = std::thread(&TimelineWriter::run, this);
}

TimelineWriter::~TimelineWriter() {
  try {
    close();
  } catch (...) {  // NOLINT(bugprone-empty-catch): close() is how callers see the error
  }
}

void TimelineWriter::begin(std::string_view tensor, std::string_view phase) {
  record('B', &tensor, phase, nullptr);
}

void TimelineWriter::begin(std::string_view tensor, std::string_view phase,
                           const TimelineTensorMeta& meta) {
  record('B', &tensor, phase, &meta);
}

void TimelineWriter::end(std::string_view tensor, std::string_view phase) {
  record('E', &tensor, phase, nullptr);
}

void TimelineWriter::mark(std::string_view name) { record('i', nullptr, name, nullptr); }

void TimelineWriter::mark_cycle_start() {
  if (mark_cycles_) mark(kCycleStartMark);
}

void TimelineWriter::begin(const std::vector<std::string_view>& tensors, std::string_view phase) {
  record_all('B', tensors, phase);
}

void TimelineWriter::end(const std::vector<std::string_view>& tensors, std::string_view phase) {
  record_all('E', tensors, phase);
}

int64_t TimelineWriter::now_ns() const {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(clock_.now() - epoch_).count();
}

bool TimelineWriter::push_locked(int64_t ts, uint32_t track, uint32_t name, char ph,
                                 const TimelineTensorMeta* meta) {
  if (queue_.size() >= capacity_) {
    ++dropped_;
    return false;
  }
  Event& ev = queue_.emplace_back();
  ev.ts_ns = ts;
  ev.track = track;
  ev.name = name;
  ev.ph = ph;
  ev.has_meta = meta != nullptr;
  if (meta) ev.meta = *meta;
  if (queue_.size() == capacity_ / 2) wake_writer_.notify_one();
  return true;
}

void TimelineWriter::record(char ph, const std::string_view* tensor, std::string_view name,
                            const TimelineTensorMeta* meta) noexcept {
  const int64_t ts = now_ns();
  std::lock_guard<std::mutex> lock(mu_);
  if (stop_) return;
  try {
    const uint32_t track = tensor ? tensors_.intern(*tensor) + 1 : 0;
    push_locked(ts, track, names_.intern(name), ph, meta);
  } catch (...) {  // out of memory while interning: lose the event, not the training step
    ++dropped_;
  }
}

void TimelineWriter::record_all(char ph, const std::vector<std::string_view>& tensors,
                                std::string_view name) noexcept {
  const int64_t ts = now_ns();
  std::lock_guard<std::mutex> lock(mu_);
  if (stop_) return;
  try {
    const uint32_t name_id = names_.intern(name);
    for (std::string_view tensor : tensors) {
      push_locked(ts, tensors_.intern(tensor) + 1, name_id, ph, nullptr);
    }
  } catch (...) {  // as in record()
    ++dropped_;
  }
}

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
  std::lock_guard<std::mutex> lock(mu_);
  return dropped_;
}

void TimelineWriter::run() {
  std::vector<Event> batch;
  batch.reserve(capacity_);
  bool failed = false;
  for (;;) {
    uint64_t generation = 0;
    uint64_t dropped = 0;
    size_t first_new_track = 0;
    bool stopping = false;
    {
      std::unique_lock<std::mutex> lock(mu_);
      wake_writer_.wait_for(lock, flush_interval_, [&] {
        return stop_ || flush_requested_ != flush_done_ || queue_.size() >= capacity_ / 2;
      });
      batch.swap(queue_);  // queue_ inherits batch's reserved, empty buffer
      first_new_track = tensor_json_.size();
      sync_names_locked();
      generation = flush_requested_;
      dropped = dropped_;
      stopping = stop_;
    }
    if (!failed) {
      try {
        write_batch(batch, first_new_track, dropped);
        if (stopping) file_->close();
      } catch (...) {  // surfaces from flush()/close(); recording goes on, unwritten
        failed = true;
        std::lock_guard<std::mutex> lock(mu_);
        error_ = std::current_exception();
      }
    }
    batch.clear();
    {
      std::lock_guard<std::mutex> lock(mu_);
      flush_done_ = generation;
      finished_ = stopping;
    }
    flushed_.notify_all();
    if (stopping) return;
  }
}

void TimelineWriter::sync_names_locked() {
  for (size_t id = tensor_json_.size(); id < tensors_.size(); ++id) {
    tensor_json_.push_back(json_string(tensors_.at(id)));
  }
  for (size_t id = name_json_.size(); id < names_.size(); ++id) {
    name_json_.push_back(json_string(names_.at(id)));
  }
}

void TimelineWriter::write_header() {
  file_->append(metadata_event("process_name", rank_, -1, "name", str_cat("\"rank ", rank_, "\"")));
  file_->append(
      metadata_event("process_sort_index", rank_, -1, "sort_index", std::to_string(rank_)));
  file_->append(metadata_event("thread_name", rank_, 0, "name", "\"marks\""));
  file_->commit();
}

void TimelineWriter::write_batch(const std::vector<Event>& batch, size_t first_new_track,
                                 uint64_t dropped) {
  for (size_t id = first_new_track; id < tensor_json_.size(); ++id) {
    const int tid = static_cast<int>(id + 1);
    file_->append(metadata_event("thread_name", rank_, tid, "name", tensor_json_[id]));
    file_->append(
        metadata_event("thread_sort_index", rank_, tid, "sort_index", std::to_string(tid)));
  }
  std::string line;
  for (const Event& ev : batch) {
    line.clear();
    format_event(ev, line);
    file_->append(line);
  }
  if (dropped > dropped_reported_) {
    dropped_reported_ = dropped;
    line = str_cat(R"({"name":")", kDroppedMark, R"(","ph":"i","s":"p","ts":)");
    append_ts(line, now_ns());
    line += str_cat(R"(,"pid":)", rank_, R"(,"tid":0,"args":{"count":)", dropped, "}}");
    file_->append(line);
  }
  file_->commit();
}

void TimelineWriter::format_event(const Event& ev, std::string& out) const {
  out += R"({"name":)";
  out += name_json_[ev.name];
  out += R"(,"ph":")";
  out.push_back(ev.ph);
  out += ev.ph == 'i' ? R"(","s":"p","ts":)" : R"(","ts":)";
  append_ts(out, ev.ts_ns);
  out += R"(,"pid":)";
  append_int(out, rank_);
  out += R"(,"tid":)";
  append_int(out, ev.track);
  if (ev.has_meta) {
    out += R"(,"args":{"dtype":")";
    out += dtype_name(ev.meta.dtype);
    out += R"(","size":)";
    append_int(out, ev.meta.num_elements);
    if (ev.meta.has_shape) {
      out += R"(,"shape":[)";
      for (size_t i = 0; i < ev.meta.ndims; ++i) {
        if (i) out.push_back(',');
        append_int(out, ev.meta.dims[i]);
      }
      out.push_back(']');
    }
    out.push_back('}');
  }
  out.push_back('}');
}

}  // namespace hvd::core
