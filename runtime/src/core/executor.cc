// SPDX-License-Identifier: Apache-2.0
#include "core/executor.h"

#include <cstring>

#include "common/reduce_kernels.h"
#include "hvd/error.h"

namespace hvd::core {
namespace {

bool is_integer(DataType t) {
  return t == DataType::kUInt8 || t == DataType::kInt32 || t == DataType::kInt64;
}

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

void copy_if_apart(const BufferView& from, const BufferView& to) {
  if (from.data != to.data && from.bytes() > 0) std::memcpy(to.data, from.data, from.bytes());
}

}  // namespace

template <typename Step>
void Executor::phase(const std::vector<TensorEntry>& entries, std::string_view name, Step step) {
  if (timeline_ != nullptr) {
    for (const TensorEntry& e : entries) timeline_->begin(e.request.name, name);
  }
  step();
  if (timeline_ != nullptr) {
    for (const TensorEntry& e : entries) timeline_->end(e.request.name, name);
  }
}

const std::string& Executor::op_phase(control::OpType type) {
  auto it = op_phases_.find(type);
  if (it == op_phases_.end()) {
    it = op_phases_.emplace(type, backend_op_phase(backend_.name(), control::op_type_name(type)))
             .first;
  }
  return it->second;
}

void Executor::scale_before(const control::Response& r, BufferView buf) {
  if (r.prescale != 1.0) scale(buf.data, buf.count, buf.dtype, r.prescale);
}

void Executor::scale_after(const control::Response& r, BufferView buf) {
  if (r.op == ReduceOp::kAverage) {
    if (is_integer(buf.dtype)) {
      divide(buf.data, buf.count, buf.dtype, static_cast<size_t>(size_));
    } else {
      scale(buf.data, buf.count, buf.dtype, r.postscale / size_);
      return;
    }
  }
  if (r.postscale != 1.0) scale(buf.data, buf.count, buf.dtype, r.postscale);
}

static ReduceOp backend_op(ReduceOp op) { return op == ReduceOp::kAverage ? ReduceOp::kSum : op; }

void Executor::allreduce(const control::Response& r, std::vector<TensorEntry>& entries) {
  if (entries.size() > 1) return allreduce_fused(r, entries);
  TensorEntry& e = entries[0];
  copy_if_apart(e.input, e.output);
  phase(entries, op_phase(r.type), [&] {
    scale_before(r, e.output);
    backend_.allreduce(e.output, backend_op(r.op));
    scale_after(r, e.output);
  });
}

void Executor::allreduce_fused(const control::Response& r, std::vector<TensorEntry>& entries) {
  size_t bytes = 0;
  for (const TensorEntry& e : entries) bytes += e.input.bytes();
  if (fusion_.size() < bytes) fusion_.resize(bytes);  // persistent: grows, never shrinks
  phase(entries, timeline_phase::kMemcpyInFusionBuffer, [&] {
    size_t offset = 0;
    for (const TensorEntry& e : entries) {
      if (e.input.bytes() > 0) std::memcpy(fusion_.data() + offset, e.input.data, e.input.bytes());
      offset += e.input.bytes();
    }
  });
  BufferView fused{fusion_.data(), bytes / dtype_size(r.dtype), r.dtype, r.device};
  phase(entries, op_phase(r.type), [&] {
    scale_before(r, fused);
    backend_.allreduce(fused, backend_op(r.op));
    scale_after(r, fused);
  });
  phase(entries, timeline_phase::kMemcpyOutFusionBuffer, [&] {
    size_t offset = 0;
    for (TensorEntry& e : entries) {
      if (e.output.bytes() > 0)
        std::memcpy(e.output.data, fusion_.data() + offset, e.output.bytes());
      offset += e.output.bytes();
    }
  });
}

void Executor::allgather(const control::Response& r, TensorEntry& e) {
  HVD_CHECK(r.first_dims.size() == static_cast<size_t>(size_), "allgather without first dims");
  const size_t row = row_elements(e.request);
  std::vector<size_t> counts;
  int64_t rows = 0;
  for (int64_t d : r.first_dims) {
    counts.push_back(static_cast<size_t>(d) * row);
    rows += d;
  }
  e.handle->output_shape = e.request.shape.empty() ? std::vector<int64_t>{rows} : e.request.shape;
  e.handle->output_shape[0] = rows;
  e.handle->output.resize(static_cast<size_t>(rows) * row * dtype_size(r.dtype));
  BufferView out{e.handle->output.data(), static_cast<size_t>(rows) * row, r.dtype, e.input.device};
  backend_.allgatherv(e.input, out, counts);
}

void Executor::reducescatter(const control::Response& r, TensorEntry& e) {
  const size_t row = row_elements(e.request);
  std::vector<size_t> counts = split_rows(static_cast<size_t>(e.request.shape.at(0)), size_);
  for (size_t& c : counts) c *= row;
  HVD_CHECK(e.output.count == counts[static_cast<size_t>(rank_)], "reducescatter output of ",
            e.output.count, " elements for a block of ", counts[static_cast<size_t>(rank_)]);
  std::vector<char> scratch(e.input.bytes());
  if (!scratch.empty()) std::memcpy(scratch.data(), e.input.data, scratch.size());
  BufferView in{scratch.data(), e.input.count, e.input.dtype, e.input.device};
  scale_before(r, in);
  backend_.reducescatter(in, e.output, counts, backend_op(r.op));
  scale_after(r, e.output);
}

void Executor::alltoall(TensorEntry& e) {
  const size_t row = row_elements(e.request);
  std::vector<size_t> counts = split_rows(static_cast<size_t>(e.request.shape.at(0)), size_);
  for (size_t& c : counts) c *= row;
  backend_.alltoall(e.input, counts, e.output, counts);
}

void Executor::run_other(const control::Response& r, std::vector<TensorEntry>& entries) {
  switch (r.type) {
    case control::OpType::kAllreduce:
      allreduce(r, entries);
      break;
    case control::OpType::kBroadcast:
      copy_if_apart(entries[0].input, entries[0].output);
      backend_.broadcast(entries[0].output, r.root);
      break;
    case control::OpType::kAllgather:
      allgather(r, entries[0]);
      break;
    case control::OpType::kReducescatter:
      reducescatter(r, entries[0]);
      break;
    case control::OpType::kAlltoall:
      alltoall(entries[0]);
      break;
    case control::OpType::kBarrier:
      backend_.barrier();
      break;
  }
}

void Executor::run(const control::Response& r, std::vector<TensorEntry> entries) {
  if (r.kind == control::Response::Kind::kError) {
    for (TensorEntry& e : entries) e.handle->complete(Status::error(ErrorCode::kUsage, r.error));
    return;
  }
  try {
    if (r.type == control::OpType::kAllreduce) {
      allreduce(r, entries);  // records its own phases (fusion copies, backend call)
    } else {
      phase(entries, op_phase(r.type), [&] { run_other(r, entries); });
    }
  } catch (...) {
    const Status failed = Status::from_exception(std::current_exception());
    for (TensorEntry& e : entries) e.handle->complete(failed);
    throw;
  }
  for (TensorEntry& e : entries) e.handle->complete(Status());
}

}  // namespace hvd::core
