// SPDX-License-Identifier: Apache-2.0
#include "bench/hvd_runtime_impl.h"

#include <cstring>

#include "hvd/hvd.h"
#include "hvd/str_cat.h"

namespace hvd::bench {
namespace {

TensorView view_of(void* data, DataType dtype, size_t count) {
  return TensorView{data, dtype, {static_cast<int64_t>(count)}, Device{}};
}

}  // namespace

void throw_if_failed(const Status& status, const std::string& what) {
  if (!status.ok()) throw Error(status.code(), str_cat(what, ": ", status.message()));
}

HvdRuntimeImpl::HvdRuntimeImpl() { throw_if_failed(hvd::init(), "hvd::init"); }

HvdRuntimeImpl::~HvdRuntimeImpl() { (void)hvd::shutdown(); }

RunOnce HvdRuntimeImpl::prepare(Op op, const std::string& /*algorithm*/, Buffers& bufs,
                                ReduceOp redop, int root) {
  const std::string name = str_cat("bench/", op_label(op), "/", bufs.out.size());
  const TensorView out =
      view_of(bufs.out.data(), bufs.dtype, bufs.out.size() / dtype_size(bufs.dtype));
  switch (op) {
    case Op::kAllreduce:
      return [name, out, redop] {
        throw_if_failed(hvd::allreduce_async(name, out, out, redop).wait(), name);
      };
    case Op::kBroadcast:
      return [name, out, root] {
        throw_if_failed(hvd::broadcast_async(name, out, out, root).wait(), name);
      };
    case Op::kAllgather: {
      const TensorView in = view_of(bufs.in.data(), bufs.dtype, bufs.count);
      char* dest = bufs.out.data();
      const size_t bytes = bufs.out.size();
      return [name, in, dest, bytes] {
        const Handle h = hvd::allgather_async(name, in);
        throw_if_failed(h.wait(), name);
        // The runtime owns the gathered tensor; the copy is part of using it.
        std::memcpy(dest, h.output().data(), bytes);
      };
    }
  }
  return [] {};
}

void HvdRuntimeImpl::reduce(std::vector<double>& values, ReduceOp op) {
  const TensorView v = view_of(values.data(), DataType::kFloat64, values.size());
  const std::string name = str_cat("bench/reduce/", values.size());
  throw_if_failed(hvd::allreduce_async(name, v, v, op).wait(), name);
}

void HvdRuntimeImpl::barrier() { throw_if_failed(hvd::barrier(), "hvd::barrier"); }

}  // namespace hvd::bench
