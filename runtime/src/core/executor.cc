// SPDX-License-Identifier: Apache-2.0
#include "core/executor.h"

#include <algorithm>
#include <cstring>

#include "backends/copy_plan.h"
#include "control/vote_fold.h"
#include "hvd/error.h"

namespace hvd::core {
namespace {

using backends::BufferSlot;
using backends::Lane;

size_t row_elements(const control::Request& r) {
  size_t n = 1;
  for (size_t d = 1; d < r.shape.size(); ++d) n *= static_cast<size_t>(r.shape[d]);
  return n;
}

// Rows of a first dimension of `rows` split over `size` ranks: the first rows % size ranks get
// one more (Horovod's reducescatter and alltoall split).
std::vector<size_t> split_rows(size_t rows, int size) {
  std::vector<size_t> counts(static_cast<size_t>(size), rows / static_cast<size_t>(size));
  for (size_t r = 0; r < rows % static_cast<size_t>(size); ++r) ++counts[r];
  return counts;
}

void copy_if_apart(Lane& lane, const BufferView& from, const BufferView& to) {
  if (from.data != to.data && from.bytes() > 0) {
    lane.memory->copy({backends::CopySegment{from.data, to.data, from.bytes()}});
  }
}

ReduceOp backend_op(ReduceOp op) { return op == ReduceOp::kAverage ? ReduceOp::kSum : op; }

}  // namespace

template <typename Step>
void Executor::phase(const std::vector<TensorEntry>& entries, std::string_view name, Step step) {
  if (timeline_ == nullptr) return step();
  if (!group_.valid()) {
    std::vector<std::string_view> tensors;
    tensors.reserve(entries.size());
    for (const TensorEntry& e : entries) tensors.push_back(e.request.name);
    group_ = timeline_->group(tensors);
  }
  timeline_->begin(group_, name);
  step();
  timeline_->end(group_, name);
}

const std::string& Executor::op_phase(const backends::Backend& backend, control::OpType type) {
  const auto key = std::make_pair(&backend, type);
  auto it = op_phases_.find(key);
  if (it == op_phases_.end()) {
    it = op_phases_.emplace(key, backend_op_phase(backend.name(), control::op_type_name(type)))
             .first;
  }
  return it->second;
}

void Executor::scale_before(Lane& lane, const control::Response& r, BufferView buf) {
  if (r.prescale != 1.0) lane.memory->scale(buf, r.prescale);
}

// Horovod averages through the postscale: one multiplication of the sum by postscale / size,
// for integers too (in double, truncated), so an average with a postscale rounds once.
void Executor::scale_after(Lane& lane, const control::Response& r, BufferView buf) {
  const double factor = r.op == ReduceOp::kAverage ? r.postscale / size_ : r.postscale;
  if (factor != 1.0) lane.memory->scale(buf, factor);
}

void Executor::allreduce(Lane& lane, const control::Response& r,
                         std::vector<TensorEntry>& entries) {
  if (r.op == ReduceOp::kAdasum) return adasum(lane, r, entries);
  if (entries.size() > 1) return allreduce_fused(lane, r, entries);
  TensorEntry& e = entries[0];
  copy_if_apart(lane, e.input, e.output);
  phase(entries, op_phase(*lane.backend, r.type), [&] {
    scale_before(lane, r, e.output);
    lane.backend->allreduce(e.output, backend_op(r.op));
    scale_after(lane, r, e.output);
  });
}

bool Executor::fold_input(const control::Response& r, const BufferView& input, void* dst) {
  if (!input.device.is_cpu() || input.dtype != r.dtype || input.bytes() != control::fold_bytes(r)) {
    return false;
  }
  Lane* lane = nullptr;
  try {
    lane = &lanes_.select(input.device, r.dtype, backend_op(r.op));
  } catch (const ConfigError&) {
    return false;
  }
  std::memcpy(dst, input.data, input.bytes());
  scale_before(*lane, r, BufferView{dst, input.count, input.dtype, input.device});
  return true;
}

void Executor::complete_folded(const control::Response& r,
                               const std::vector<TensorEntry>& entries, const void* reduced) {
  HVD_CHECK(entries.size() == 1 && entries[0].output.bytes() == control::fold_bytes(r),
            "a folded allreduce of ", entries.size(), " tensors");
  const BufferView& out = entries[0].output;
  std::memcpy(out.data, reduced, out.bytes());
  // The lane fold_input() found for this tensor, which only scales host memory here.
  scale_after(lanes_.select(out.device, r.dtype, backend_op(r.op)), r, out);
  complete_entries(entries, Status());
}

template <typename Reduce>
void Executor::through_fusion_buffer(Lane& lane, const control::Response& r,
                                     const std::vector<TensorEntry>& entries, size_t alignment,
                                     Reduce reduce) {
  std::vector<size_t>& sizes = sizes_;
  std::vector<BufferView>& inputs = inputs_;
  std::vector<BufferView>& outputs = outputs_;
  sizes.clear();
  inputs.clear();
  outputs.clear();
  for (const TensorEntry& e : entries) {
    sizes.push_back(e.input.bytes());
    inputs.push_back(e.input);
    outputs.push_back(e.output);
  }
  const backends::FusionLayout layout = backends::plan_fusion_layout(sizes, alignment);
  void* fusion = lane.memory->buffer(BufferSlot::kFusion, layout.total_bytes);
  phase(entries, timeline_phase::kMemcpyInFusionBuffer,
        [&] { lane.memory->copy(backends::plan_fusion_copies(inputs, fusion, layout, true)); });
  reduce(BufferView{fusion, layout.total_bytes / dtype_size(r.dtype), r.dtype,
                    entries[0].input.device});
  phase(entries, timeline_phase::kMemcpyOutFusionBuffer,
        [&] { lane.memory->copy(backends::plan_fusion_copies(outputs, fusion, layout, false)); });
}

void Executor::allreduce_fused(Lane& lane, const control::Response& r,
                               std::vector<TensorEntry>& entries) {
  if (lane.backend->reduces_pieces()) return allreduce_pieces(lane, r, entries);
  // Padding between tensors (CUDA: 16 bytes, for vector copies) is reduced with them and
  // never read back.
  through_fusion_buffer(lane, r, entries, lane.memory->fusion_alignment(), [&](BufferView fused) {
    phase(entries, op_phase(*lane.backend, r.type), [&] {
      scale_before(lane, r, fused);
      lane.backend->allreduce(fused, backend_op(r.op));
      scale_after(lane, r, fused);
    });
  });
}

void Executor::adasum(Lane& lane, const control::Response& r, std::vector<TensorEntry>& entries) {
  // Adasum halves one contiguous buffer and needs each tensor's bounds: a single tensor is
  // combined in its output, several are packed back to back into the fusion buffer (aligned to
  // one element: padding would join a tensor's dot products).
  std::vector<size_t> counts;
  for (const TensorEntry& e : entries) counts.push_back(e.input.count);
  const auto combine = [&](BufferView buf) {
    phase(entries, op_phase(*lane.backend, r.type), [&] {
      scale_before(lane, r, buf);
      lane.backend->adasum(buf, counts);
      scale_after(lane, r, buf);
    });
  };
  if (entries.size() == 1) {
    copy_if_apart(lane, entries[0].input, entries[0].output);
    return combine(entries[0].output);
  }
  through_fusion_buffer(lane, r, entries, dtype_size(r.dtype), combine);
}

void Executor::allreduce_pieces(Lane& lane, const control::Response& r,
                                std::vector<TensorEntry>& entries) {
  // Each output is reduced where it lies, as a single tensor is: an input that is not its
  // output is copied there first (a fusion buffer would copy every tensor in and out).
  std::vector<BufferView>& outputs = outputs_;
  std::vector<backends::CopySegment>& apart = apart_;
  outputs.clear();
  apart.clear();
  for (const TensorEntry& e : entries) {
    outputs.push_back(e.output);
    if (e.input.data != e.output.data && e.input.bytes() > 0) {
      apart.push_back(backends::CopySegment{e.input.data, e.output.data, e.input.bytes()});
    }
  }
  if (!apart.empty()) lane.memory->copy(apart);
  phase(entries, op_phase(*lane.backend, r.type), [&] {
    for (const BufferView& out : outputs) scale_before(lane, r, out);
    lane.backend->allreduce_pieces(outputs, backend_op(r.op));
    for (const BufferView& out : outputs) scale_after(lane, r, out);
  });
}

void Executor::allgather(Lane& lane, const control::Response& r, TensorEntry& e) {
  HVD_CHECK(r.first_dims.size() == static_cast<size_t>(size_), "allgather without first dims");
  // The first dims come from the coordinator, which checked them; a response from a peer is
  // still checked again here, in int64 without wrapping, before anything is sized from it.
  std::vector<int64_t> out_shape =
      e.request.shape.empty() ? std::vector<int64_t>{0} : e.request.shape;
  const int64_t own_rows = e.request.shape.empty() ? 1 : e.request.shape[0];
  out_shape[0] = 0;
  for (int64_t d : r.first_dims) {
    if (d < 0 || __builtin_add_overflow(out_shape[0], d, &out_shape[0])) out_shape[0] = -1;
    if (out_shape[0] < 0) break;
  }
  if (out_shape[0] < 0 || own_rows != r.first_dims[static_cast<size_t>(rank_)] ||
      !control::shape_problem(out_shape, r.dtype).empty()) {
    throw BackendError(str_cat("allgather '", e.request.name,
                               "': the coordinator's row counts do not fit this rank's tensor"));
  }
  const auto row =
      static_cast<size_t>(control::element_count(out_shape) / std::max<int64_t>(out_shape[0], 1));
  std::vector<size_t> counts;
  for (int64_t d : r.first_dims) counts.push_back(static_cast<size_t>(d) * row);
  e.handle->output_shape = out_shape;
  const auto count = static_cast<size_t>(control::element_count(out_shape));
  e.handle->output.resize(count * dtype_size(r.dtype));
  if (e.input.device.is_cpu()) {
    lane.backend->allgatherv(e.input, {e.handle->output.data(), count, r.dtype, e.input.device},
                             counts);
    return;
  }
  // The handle's output is host memory (Handle::output()): gather on the device, then copy.
  BufferView gathered{lane.memory->buffer(BufferSlot::kScratch, e.handle->output.size()), count,
                      r.dtype, e.input.device};
  lane.backend->allgatherv(e.input, gathered, counts);
  lane.memory->to_host(e.handle->output.data(), gathered.data, gathered.bytes());
}

void Executor::reducescatter(Lane& lane, const control::Response& r, TensorEntry& e) {
  const size_t row = row_elements(e.request);
  std::vector<size_t> counts = split_rows(static_cast<size_t>(e.request.shape.at(0)), size_);
  for (size_t& c : counts) c *= row;
  HVD_CHECK(e.output.count == counts[static_cast<size_t>(rank_)], "reducescatter output of ",
            e.output.count, " elements for a block of ", counts[static_cast<size_t>(rank_)]);
  // The prescale must not change the caller's input: reduce a copy.
  BufferView in{lane.memory->buffer(BufferSlot::kScratch, e.input.bytes()), e.input.count,
                e.input.dtype, e.input.device};
  copy_if_apart(lane, e.input, in);
  scale_before(lane, r, in);
  lane.backend->reducescatter(in, e.output, counts, backend_op(r.op));
  scale_after(lane, r, e.output);
}

void Executor::alltoall(Lane& lane, const control::Response& r, TensorEntry& e) {
  const size_t row = row_elements(e.request);
  const auto n = static_cast<size_t>(size_);
  const auto me = static_cast<size_t>(rank_);
  if (r.first_dims.size() != n * n) {
    throw BackendError(str_cat("alltoall '", e.request.name, "': the coordinator sent ",
                               r.first_dims.size(), " split counts for ", size_, " ranks"));
  }
  // Row j * n + k of the matrix: what rank j sends to rank k.
  std::vector<size_t> send(n), recv(n);
  std::vector<int64_t> received(n);
  size_t received_rows = 0;
  for (size_t k = 0; k < n; ++k) {
    send[k] = static_cast<size_t>(r.first_dims[me * n + k]) * row;
    received[k] = r.first_dims[k * n + me];
    recv[k] = static_cast<size_t>(received[k]) * row;
    received_rows += static_cast<size_t>(received[k]);
  }
  if (e.request.splits.empty()) {  // alltoall_async: equal blocks into the caller's output
    HVD_CHECK(received_rows * row == e.output.count, "alltoall '", e.request.name, "' receives ",
              received_rows * row, " elements into an output of ", e.output.count);
    lane.backend->alltoall(e.input, send, e.output, recv);
    return;
  }
  // alltoallv_async: only now is the output's size known, so the handle owns it (host memory,
  // as allgather's).
  std::vector<int64_t> out_shape = e.request.shape;
  out_shape.at(0) = static_cast<int64_t>(received_rows);
  const size_t count = received_rows * row;
  e.handle->output_shape = out_shape;
  e.handle->received_splits = received;
  e.handle->output.resize(count * dtype_size(r.dtype));
  if (e.input.device.is_cpu()) {
    lane.backend->alltoall(e.input, send, {e.handle->output.data(), count, r.dtype, e.input.device},
                           recv);
    return;
  }
  BufferView received_buf{lane.memory->buffer(BufferSlot::kScratch, e.handle->output.size()),
                          count, r.dtype, e.input.device};
  lane.backend->alltoall(e.input, send, received_buf, recv);
  lane.memory->to_host(e.handle->output.data(), received_buf.data, received_buf.bytes());
}

void Executor::run_other(Lane& lane, const control::Response& r,
                         std::vector<TensorEntry>& entries) {
  switch (r.type) {
    case control::OpType::kAllreduce:
      allreduce(lane, r, entries);
      break;
    case control::OpType::kBroadcast:
      copy_if_apart(lane, entries[0].input, entries[0].output);
      lane.backend->broadcast(entries[0].output, r.root);
      break;
    case control::OpType::kAllgather:
      allgather(lane, r, entries[0]);
      break;
    case control::OpType::kReducescatter:
      reducescatter(lane, r, entries[0]);
      break;
    case control::OpType::kAlltoall:
      alltoall(lane, r, entries[0]);
      break;
    case control::OpType::kBarrier:
      lane.backend->barrier();
      break;
    case control::OpType::kJoin:
      break;  // run() completes joins without a lane
    case control::OpType::kAddProcessSet:
    case control::OpType::kRemoveProcessSet:
      HVD_CHECK(false, "the runtime, not the executor, changes process sets");
  }
}

void Executor::run_on(Lane& lane, const control::Response& r, std::vector<TensorEntry>& entries) {
  try {
    if (r.type == control::OpType::kAllreduce) {
      allreduce(lane, r, entries);  // records its own phases (fusion copies, backend call)
    } else {
      phase(entries, op_phase(*lane.backend, r.type), [&] { run_other(lane, r, entries); });
    }
  } catch (...) {
    const Status failed = Status::from_exception(std::current_exception());
    complete_entries(entries, failed);
    throw;
  }
  complete_entries(entries, Status());
}

void Executor::run(const control::Response& r, std::vector<TensorEntry>& entries,
                   TimelineGroup group) {
  // The caller's group names the response's tensors; entries lacking one of them need their own.
  group_ = entries.size() == r.names.size() ? group : TimelineGroup{};
  if (r.kind == control::Response::Kind::kError) {
    complete_entries(entries, Status::error(ErrorCode::kUsage, r.error));
    return;
  }
  if (r.type == control::OpType::kJoin) {  // every rank has joined: nothing to move
    for (TensorEntry& e : entries) e.handle->last_joined_rank = r.last_joined_rank;
    complete_entries(entries, Status());
    return;
  }
  Lane* lane = nullptr;
  try {
    // The local tensors' device, not the response's: each rank may drive a different GPU.
    lane = &lanes_.select(entries.at(0).input.device, r.dtype, backend_op(r.op));
  } catch (...) {
    // Not fatal: this response cannot run in this build or on this device, the others can.
    const Status failed = Status::from_exception(std::current_exception());
    complete_entries(entries, failed);
    return;
  }
  run_on(*lane, r, entries);
}

}  // namespace hvd::core
