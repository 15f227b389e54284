// SPDX-License-Identifier: Apache-2.0
#include "timeline/timeline.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <utility>

#include "hvd/error.h"
#include "hvd/str_cat.h"
#include "timeline/timeline_file.h"
#include "timeline/timeline_record_builder.h"
#include "timeline/timeline_ring.h"
#include "timeline/timeline_thread_slot.h"
#include "timeline_merge/timeline_format.h"
#include "timeline_merge/timeline_merge.h"

namespace hvd::core {
namespace {

namespace fmt = timeline_format;

std::atomic<uint64_t> g_next_writer_serial{1};

// The calling thread's slot in the writer it used last (by serial, so that a new writer at
// the address of a destroyed one is never mistaken for it).
struct CachedSlot {
  uint64_t serial = 0;
  void* slot = nullptr;
};
thread_local CachedSlot t_cached_slot;

// Thread numbers fit EventBody::args_from; a thread past the last records no args.
constexpr size_t kMaxThreadNumber = 0xFFFF;

// a == b, a word at a time: it runs for every tensor of every step, on short names, where a
// call to the library's memcmp costs more than the comparison itself.
bool same_name(std::string_view a, std::string_view b) {
  const size_t n = a.size();
  if (n != b.size()) return false;
  if (n < sizeof(uint64_t)) return a == b;
  const auto word = [](const char* p) {
    uint64_t w;
    std::memcpy(&w, p, sizeof(w));
    return w;
  };
  for (size_t i = 0; i + sizeof(uint64_t) < n; i += sizeof(uint64_t)) {
    if (word(a.data() + i) != word(b.data() + i)) return false;
  }
  // The last word, which may overlap the one before.
  return word(a.data() + n - sizeof(uint64_t)) == word(b.data() + n - sizeof(uint64_t));
}

bool same_meta(const TimelineTensorMeta& a, const TimelineTensorMeta& b) {
  return a.dtype == b.dtype && a.num_elements == b.num_elements && a.has_shape == b.has_shape &&
         a.ndims == b.ndims && std::equal(a.dims.begin(), a.dims.begin() + a.ndims, b.dims.begin());
}

template <typename Builder>
void put_meta(Builder& r, const TimelineTensorMeta& meta) {
  const uint8_t ndims = meta.has_shape ? meta.ndims : 0;
  r.put(fmt::MetaBody{static_cast<uint8_t>(meta.dtype), static_cast<uint8_t>(meta.has_shape ? 1 : 0),
                      ndims, {}, meta.num_elements});
  r.put_bytes(reinterpret_cast<const char*>(meta.dims.data()), ndims * sizeof(int64_t));
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

bool TimelineTensorMeta::is_shape(DataType t, const std::vector<int64_t>& shape) const {
  if (t != dtype || has_shape != (shape.size() <= kMaxDims)) return false;
  if (has_shape && ndims != shape.size()) return false;
  uint64_t n = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (has_shape && dims[i] != shape[i]) return false;
    n *= static_cast<uint64_t>(shape[i] < 0 ? 0 : shape[i]);
  }
  return n == num_elements;
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
    : serial_(g_next_writer_serial.fetch_add(1)),
      rank_(options.rank),
      epoch_(options.epoch),
      clock_(options.clock ? *options.clock : steady_),
      mark_cycles_(options.mark_cycles),
      // At least the largest record, so that a group chunk fits even the smallest ring.
      ring_words_(std::max(options.queue_capacity * fmt::kEventWords, fmt::kMaxRecordWords)),
      flush_interval_(options.flush_interval),
      path_(timeline_rank_path(options.filename, options.rank, options.file_tag)) {
  if (options.filename.empty()) throw ConfigError("timeline: empty file name");
  HVD_CHECK(options.queue_capacity >= 1, "timeline queue capacity ", options.queue_capacity);
  file_ = std::make_unique<TimelineFile>(path_, static_cast<uint32_t>(rank_));
  thread_ = std::thread(&TimelineWriter::run, this);
}

TimelineWriter::~TimelineWriter() {
  try {
    close();
  } catch (...) {  // NOLINT(bugprone-empty-catch): close() is how callers see the error
  }
}

TimelineWriter::ThreadSlot* TimelineWriter::slot() {
  if (t_cached_slot.serial == serial_) return static_cast<ThreadSlot*>(t_cached_slot.slot);
  return register_thread();
}

TimelineWriter::ThreadSlot* TimelineWriter::register_thread() {
  std::lock_guard<std::mutex> lock(slots_mu_);
  ThreadSlot* found = nullptr;
  // A thread that went back and forth between two writers finds its old slot here.
  for (const auto& s : slots_) {
    if (s->owner == std::this_thread::get_id()) found = s.get();
  }
  if (found == nullptr) {
    const size_t number = slots_.size() + 1;
    slots_.push_back(std::make_unique<ThreadSlot>(
        ring_words_, static_cast<uint16_t>(number <= kMaxThreadNumber ? number : 0)));
    found = slots_.back().get();
  }
  t_cached_slot = CachedSlot{serial_, found};
  return found;
}

uint32_t TimelineWriter::tensor_id(ThreadSlot& s, std::string_view tensor) {
  const auto it = s.tensor_ids.find(tensor);
  if (it != s.tensor_ids.end()) return it->second;
  std::lock_guard<std::mutex> lock(names_mu_);
  const uint32_t id = tensors_.intern(tensor);
  const std::string_view stored = tensors_.at(id);
  if (s.known.size() <= id) s.known.resize(size_t{id} + 1);
  s.known[id].name = stored;
  s.tensor_ids.emplace(stored, id);
  return id;
}

uint32_t TimelineWriter::next_group_tensor(ThreadSlot& s, std::string_view tensor) {
  const uint32_t predicted = s.building_last == 0 ? s.first : s.known[s.building_last - 1].next;
  uint32_t id = predicted - 1;
  if (predicted == 0 || !same_name(s.known[id].name, tensor)) {
    id = tensor_id(s, tensor);  // may grow s.known: no reference into it is held across
    (s.building_last == 0 ? s.first : s.known[s.building_last - 1].next) = id + 1;
  }
  s.building.push_back(id);
  s.building_last = id + 1;
  return id;
}

void TimelineWriter::note_meta(ThreadSlot& s, uint32_t tensor, DataType dtype,
                               const std::vector<int64_t>& shape) {
  const uint32_t at = s.known[tensor].meta;
  if (s.number == 0 || (at != 0 && s.metas[at - 1].is_shape(dtype, shape))) return;
  note_meta(s, tensor, TimelineTensorMeta::of_shape(dtype, shape));
}

void TimelineWriter::note_meta(ThreadSlot& s, uint32_t tensor, const TimelineTensorMeta& meta) {
  uint32_t& at = s.known[tensor].meta;
  if (s.number == 0 || (at != 0 && same_meta(s.metas[at - 1], meta))) return;
  fmt::RecordBuilder<fmt::record_words(sizeof(fmt::TensorMetaBody) + sizeof(fmt::MetaBody) +
                                       fmt::kMaxDims * sizeof(int64_t))>
      r(fmt::RecordKind::kTensorMeta, tensor);
  r.put(fmt::TensorMetaBody{s.number, 0});
  put_meta(r, meta);
  if (!push(s, r.words(), r.size())) {
    at = 0;  // dropped: write it again next time (an unused entry of metas stays behind)
    return;
  }
  if (at == 0) {
    s.metas.push_back(meta);
    at = static_cast<uint32_t>(s.metas.size());
  } else {
    s.metas[at - 1] = meta;
  }
}

TimelineGroup TimelineWriter::finish_group(ThreadSlot& s) {
  for (const ThreadSlot::RecentGroup& g : s.recent) {
    if (g.id != 0 && g.tensors == s.building) return {g.id};
  }
  const TimelineGroup group{next_group_.fetch_add(1, std::memory_order_relaxed)};
  bool whole = true;
  // In chunks of kMaxGroupChunk, so that every record fits the ring of any capacity >= it.
  for (size_t first = 0; first < s.building.size(); first += fmt::kMaxGroupChunk) {
    const size_t count = std::min(fmt::kMaxGroupChunk, s.building.size() - first);
    fmt::RecordBuilder<fmt::kMaxRecordWords> r(fmt::RecordKind::kGroup, group.id);
    r.put(fmt::GroupBody{static_cast<uint32_t>(count), 0});
    r.put_bytes(reinterpret_cast<const char*>(&s.building[first]), count * sizeof(uint32_t));
    whole = push(s, r.words(), r.size()) && whole;
  }
  // A group the file lacks (part of it) is not used again: its events could not be resolved.
  if (whole) {
    ThreadSlot::RecentGroup& slot = s.recent[s.next_recent];
    s.next_recent = (s.next_recent + 1) % s.recent.size();
    slot.tensors = s.building;
    slot.id = group.id;
  }
  return group;
}

uint32_t TimelineWriter::name_id(ThreadSlot& s, std::string_view name) {
  // A thread records the same phase many times in a row (NEGOTIATE for each tensor it
  // enqueues): a comparison is cheaper than a hash.
  if (name == s.last_name) return s.last_name_id;
  auto it = s.name_ids.find(name);
  if (it == s.name_ids.end()) {
    std::lock_guard<std::mutex> lock(names_mu_);
    const uint32_t id = names_.intern(name);
    it = s.name_ids.emplace(names_.at(id), id).first;
  }
  s.last_name = it->first;
  s.last_name_id = it->second;
  return it->second;
}

bool TimelineWriter::push(ThreadSlot& s, const uint64_t* words, size_t n) {
  const size_t held = s.ring.push(words, n);
  if (held == 0) {
    s.dropped.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  if (held * 2 >= s.ring.capacity() && (held - n) * 2 < s.ring.capacity()) {
    // Crossing half full: wake the writer early. Without its lock a wakeup may be missed; the
    // writer then comes at its next interval, and the other half is the margin for that.
    ring_half_full_.store(true, std::memory_order_relaxed);
    wake_writer_.notify_one();
  }
  return true;
}

void TimelineWriter::record(char ph, uint8_t subject, uint32_t subject_id,
                            const std::string_view* tensor, std::string_view name,
                            const TimelineTensorMeta* meta, bool args_from_thread) noexcept {
  if (stopped_.load(std::memory_order_relaxed)) return;
  ThreadSlot* s = nullptr;
  try {
    s = slot();
    if (tensor) subject_id = tensor_id(*s, *tensor);
    const uint32_t name_ref = name_id(*s, name);
    fmt::RecordBuilder<fmt::kEventWords + 2 + fmt::kMaxDims> r(
        meta ? fmt::RecordKind::kEventMeta : fmt::RecordKind::kEvent, name_ref);
    r.put(fmt::EventBody{now_ns(), ph, static_cast<fmt::Subject>(subject),
                         static_cast<uint16_t>(args_from_thread ? s->number : 0), subject_id});
    if (meta) put_meta(r, *meta);
    push(*s, r.words(), r.size());
  } catch (...) {  // out of memory while interning: lose the event, not the training step
    if (s) s->dropped.fetch_add(1, std::memory_order_relaxed);
  }
}

void TimelineWriter::record_tensor(char ph, std::string_view tensor, std::string_view name,
                                   const TimelineTensorMeta* meta) noexcept {
  record(ph, static_cast<uint8_t>(fmt::Subject::kTensor), 0, &tensor, name, meta);
}

void TimelineWriter::begin(std::string_view tensor, std::string_view phase) {
  record_tensor('B', tensor, phase, nullptr);
}

void TimelineWriter::begin(std::string_view tensor, std::string_view phase,
                           const TimelineTensorMeta& meta) {
  record_tensor('B', tensor, phase, &meta);
}

void TimelineWriter::end(std::string_view tensor, std::string_view phase) {
  record_tensor('E', tensor, phase, nullptr);
}

void TimelineWriter::begin(TimelineGroup group, std::string_view phase) {
  if (group.valid())
    record('B', static_cast<uint8_t>(fmt::Subject::kGroup), group.id, nullptr, phase, nullptr);
}

void TimelineWriter::begin_with_args(TimelineGroup group, std::string_view phase) {
  if (group.valid()) {
    record('B', static_cast<uint8_t>(fmt::Subject::kGroup), group.id, nullptr, phase, nullptr,
           true);
  }
}

void TimelineWriter::end(TimelineGroup group, std::string_view phase) {
  if (group.valid())
    record('E', static_cast<uint8_t>(fmt::Subject::kGroup), group.id, nullptr, phase, nullptr);
}

void TimelineWriter::mark(std::string_view name) {
  record('i', static_cast<uint8_t>(fmt::Subject::kMarks), 0, nullptr, name, nullptr);
}

void TimelineWriter::mark_cycle_start() {
  if (mark_cycles_) mark(kCycleStartMark);
}

TimelineGroup TimelineWriter::group(const std::vector<std::string>& tensors) {
  return make_group(tensors);
}

TimelineGroup TimelineWriter::group(const std::vector<std::string_view>& tensors) {
  return make_group(tensors);
}

template <typename Names>
TimelineGroup TimelineWriter::make_group(const Names& tensors) noexcept {
  TimelineGroupBuilder builder(*this);
  for (const auto& tensor : tensors) builder.add(tensor);
  return builder.finish();
}

TimelineGroupBuilder::TimelineGroupBuilder(TimelineWriter& writer) noexcept : writer_(writer) {
  if (writer.stopped_.load(std::memory_order_relaxed)) return;
  try {
    slot_ = writer.slot();
  } catch (...) {  // no slot, no ring to count the loss in: recording goes on without it
    return;
  }
  slot_->building.clear();
  slot_->building_last = 0;
}

template <typename Step>
void TimelineGroupBuilder::guarded(Step step) noexcept {
  if (slot_ == nullptr) return;
  try {
    step(*slot_);
  } catch (...) {  // out of memory while interning: lose the group, not the training step
    slot_->dropped.fetch_add(1, std::memory_order_relaxed);
    slot_ = nullptr;
  }
}

void TimelineGroupBuilder::add(std::string_view tensor) noexcept {
  guarded([&](TimelineWriter::ThreadSlot& s) { writer_.next_group_tensor(s, tensor); });
}

void TimelineGroupBuilder::add(std::string_view tensor, DataType dtype,
                               const std::vector<int64_t>& shape) noexcept {
  guarded([&](TimelineWriter::ThreadSlot& s) {
    writer_.note_meta(s, writer_.next_group_tensor(s, tensor), dtype, shape);
  });
}

void TimelineGroupBuilder::add(std::string_view tensor, const TimelineTensorMeta& meta) noexcept {
  guarded([&](TimelineWriter::ThreadSlot& s) {
    writer_.note_meta(s, writer_.next_group_tensor(s, tensor), meta);
  });
}

TimelineGroup TimelineGroupBuilder::finish() noexcept {
  TimelineGroup group;
  guarded([&](TimelineWriter::ThreadSlot& s) { group = writer_.finish_group(s); });
  return group;
}

int64_t TimelineWriter::now_ns() const {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(clock_.now() - epoch_).count();
}

}  // namespace hvd::core
