// SPDX-License-Identifier: Apache-2.0
#include "backends/nccl/nccl_backend.h"

#include <algorithm>
#include <functional>

#include "backends/cuda/cuda_error.h"
#include "backends/nccl/nccl_error.h"
#include "backends/nccl/nccl_types.h"
#include "hvd/error.h"

namespace hvd::backends::nccl {
namespace {

char* at(const BufferView& b, size_t first_element) {
  return static_cast<char*>(b.data) + first_element * dtype_size(b.dtype);
}

bool all_equal(const std::vector<size_t>& counts) {
  return std::adjacent_find(counts.begin(), counts.end(), std::not_equal_to<>()) == counts.end();
}

// ncclGroupStart/End around a set of calls; End is in the destructor only on the error path,
// so that a throwing call still closes the group.
class Group {
 public:
  Group() { HVD_NCCL_CHECK(ncclGroupStart()); }
  void end() {
    open_ = false;
    HVD_NCCL_CHECK(ncclGroupEnd());
  }
  ~Group() {
    if (open_) (void)ncclGroupEnd();
  }
  Group(const Group&) = delete;
  Group& operator=(const Group&) = delete;

 private:
  bool open_ = true;
};

}  // namespace

NcclBackend::NcclBackend(std::shared_ptr<cuda::CudaStream> stream, std::unique_ptr<NcclComm> comm,
                         int rank, int size, std::chrono::milliseconds timeout)
    : stream_(std::move(stream)),
      comm_(std::move(comm)),
      rank_(rank),
      size_(size),
      timeout_(timeout) {
  barrier_word_.reserve(sizeof(int32_t));
}

NcclBackend::~NcclBackend() {
  // The communicator and buffers belong to this device, whichever thread destroys them.
  (void)cudaSetDevice(stream_->device());
}

bool NcclBackend::supports(Device device, DataType, ReduceOp op) const {
  // No Adasum on the GPU lane: hvdrun.torch moves CUDA tensors to the host for it.
  return device.index == stream_->device() && op != ReduceOp::kAverage &&
         op != ReduceOp::kAdasum;
}

void NcclBackend::finish(const char* what) {
  try {
    stream_->wait(timeout_, what, [this] { return comm_->enqueued(); });
  } catch (...) {
    // The stream may still hold a collective that waits for a dead peer: aborting the
    // communicator ends it, so that nothing is left running on the GPU.
    comm_->abort();
    throw;
  }
}

void NcclBackend::check_counts(const std::vector<size_t>& counts, const char* what) const {
  HVD_CHECK(counts.size() == static_cast<size_t>(size_), what, ": ", counts.size(), " counts for ",
            size_, " ranks");
}

void NcclBackend::allreduce(BufferView buf, ReduceOp op) {
  if (buf.count == 0) return;
  HVD_NCCL_CHECK(ncclAllReduce(buf.data, buf.data, buf.count, nccl_dtype(buf.dtype), nccl_op(op),
                               comm_->get(), stream_->get()));
  finish("NCCL allreduce");
}

void NcclBackend::broadcast(BufferView buf, int root) {
  if (buf.count == 0) return;
  HVD_NCCL_CHECK(ncclBroadcast(buf.data, buf.data, buf.count, nccl_dtype(buf.dtype), root,
                               comm_->get(), stream_->get()));
  finish("NCCL broadcast");
}

void NcclBackend::allgatherv(BufferView in, BufferView out, const std::vector<size_t>& counts) {
  check_counts(counts, "allgatherv");
  const ncclDataType_t type = nccl_dtype(out.dtype);
  if (all_equal(counts)) {
    if (counts[0] == 0) return;
    HVD_NCCL_CHECK(ncclAllGather(in.data, out.data, counts[0], type, comm_->get(), stream_->get()));
  } else {
    Group group;
    size_t first = 0;
    for (int r = 0; r < size_; ++r) {
      const size_t n = counts[static_cast<size_t>(r)];
      const void* send = r == rank_ ? in.data : at(out, first);
      if (n > 0) {
        HVD_NCCL_CHECK(
            ncclBroadcast(send, at(out, first), n, type, r, comm_->get(), stream_->get()));
      }
      first += n;
    }
    group.end();
  }
  finish("NCCL allgather");
}

void NcclBackend::reducescatter(BufferView in, BufferView out, const std::vector<size_t>& counts,
                                ReduceOp op) {
  check_counts(counts, "reducescatter");
  const ncclDataType_t type = nccl_dtype(in.dtype);
  const ncclRedOp_t nop = nccl_op(op);
  if (all_equal(counts)) {
    if (counts[0] == 0) return;
    HVD_NCCL_CHECK(
        ncclReduceScatter(in.data, out.data, counts[0], type, nop, comm_->get(), stream_->get()));
  } else {
    Group group;
    size_t first = 0;
    for (int r = 0; r < size_; ++r) {
      const size_t n = counts[static_cast<size_t>(r)];
      // The receive buffer is used only on the root r.
      if (n > 0) {
        HVD_NCCL_CHECK(
            ncclReduce(at(in, first), out.data, n, type, nop, r, comm_->get(), stream_->get()));
      }
      first += n;
    }
    group.end();
  }
  finish("NCCL reducescatter");
}

void NcclBackend::alltoall(BufferView in, const std::vector<size_t>& send_counts, BufferView out,
                           const std::vector<size_t>& recv_counts) {
  check_counts(send_counts, "alltoall");
  check_counts(recv_counts, "alltoall");
  const ncclDataType_t type = nccl_dtype(in.dtype);
  size_t send_first = 0, recv_first = 0;
  Group group;
  for (int r = 0; r < size_; ++r) {
    const size_t s = send_counts[static_cast<size_t>(r)];
    const size_t n = recv_counts[static_cast<size_t>(r)];
    if (r == rank_) {
      HVD_CHECK(s == n, "alltoall: ", s, " elements to self but ", n, " expected");
      if (n > 0) {
        HVD_CUDA_CHECK(cudaMemcpyAsync(at(out, recv_first), at(in, send_first),
                                       n * dtype_size(in.dtype), cudaMemcpyDefault,
                                       stream_->get()));
      }
    } else {
      if (s > 0) {
        HVD_NCCL_CHECK(ncclSend(at(in, send_first), s, type, r, comm_->get(), stream_->get()));
      }
      if (n > 0) {
        HVD_NCCL_CHECK(ncclRecv(at(out, recv_first), n, type, r, comm_->get(), stream_->get()));
      }
    }
    send_first += s;
    recv_first += n;
  }
  group.end();
  finish("NCCL alltoall");
}

void NcclBackend::barrier() {
  // A one-element allreduce: it completes on a rank only once every rank has joined.
  void* word = barrier_word_.reserve(sizeof(int32_t));
  HVD_NCCL_CHECK(ncclAllReduce(word, word, 1, ncclInt32, ncclSum, comm_->get(), stream_->get()));
  finish("NCCL barrier");
}

}  // namespace hvd::backends::nccl
