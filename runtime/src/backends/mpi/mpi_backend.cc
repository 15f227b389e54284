// SPDX-License-Identifier: Apache-2.0
#include "backends/mpi/mpi_backend.h"

#include <algorithm>
#include <climits>
#include <string>

#include "backends/adasum/kernels.h"
#include "backends/adasum/vhdd.h"
#include "backends/mpi/mpi_error.h"
#include "backends/mpi/mpi_types.h"
#include "bootstrap/mpi_thread_level.h"
#include "common/reduce_kernels.h"
#include "hvd/env_keys.h"
#include "hvd/error.h"
#include "hvd/str_cat.h"

namespace hvd::backends::mpi {
namespace {

// MPI-3 counts are int.
constexpr size_t kMaxCount = static_cast<size_t>(INT_MAX);

// The user-defined reduction for one (dtype, op) with libhvd's kernels: inout[i] = in[i] op
// inout[i]. All four ops are commutative, so the operand order does not matter. MPI passes
// *len elements of the datatype the op was called with, which is always the matching type
// (the 2-byte types below for float16 and bfloat16; MPI_UINT8_T, MPI_INT8_T, MPI_INT16_T).
template <DataType kType, ReduceOp kOp>
void reduce_2byte(void* in, void* inout, int* len, MPI_Datatype* /*type*/) {
  reduce_into(inout, in, static_cast<size_t>(*len), kType, kOp);
}

template <DataType kType>
void create_ops(std::array<MPI_Op, 4>& ops) {
  HVD_MPI_CHECK(MPI_Op_create(&reduce_2byte<kType, ReduceOp::kSum>, 1, &ops[0]));
  HVD_MPI_CHECK(MPI_Op_create(&reduce_2byte<kType, ReduceOp::kMin>, 1, &ops[1]));
  HVD_MPI_CHECK(MPI_Op_create(&reduce_2byte<kType, ReduceOp::kMax>, 1, &ops[2]));
  HVD_MPI_CHECK(MPI_Op_create(&reduce_2byte<kType, ReduceOp::kProduct>, 1, &ops[3]));
}

MPI_Datatype create_2byte_type(const char* name) {
  MPI_Datatype type = MPI_DATATYPE_NULL;
  HVD_MPI_CHECK(MPI_Type_contiguous(2, MPI_BYTE, &type));
  HVD_MPI_CHECK(MPI_Type_commit(&type));
  // A name for MPI's own error messages and tools; failing to set it is harmless.
  MPI_Type_set_name(type, name);
  return type;
}

size_t half_op_index(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum:
      return 0;
    case ReduceOp::kMin:
      return 1;
    case ReduceOp::kMax:
      return 2;
    case ReduceOp::kProduct:
      return 3;
    case ReduceOp::kAverage:
    case ReduceOp::kAdasum:
      break;
  }
  HVD_CHECK(false, "the MPI backend got ReduceOp ", op_name(op), "; the executor must not pass it");
  return 0;
}

int as_int(size_t count, const char* what) {
  if (count > kMaxCount) {
    throw BackendError(str_cat("MPI: ", what, " needs ", count, " elements in one count or offset;",
                               " MPI's limit is ", INT_MAX));
  }
  return static_cast<int>(count);
}

// Counts and their prefix sums, as MPI's int arrays.
struct IntCounts {
  std::vector<int> counts;
  std::vector<int> displs;
  size_t total = 0;
};

IntCounts int_counts(const std::vector<size_t>& counts, const char* what) {
  IntCounts c;
  for (size_t n : counts) {
    c.counts.push_back(as_int(n, what));
    c.displs.push_back(as_int(c.total, what));
    c.total += n;
  }
  return c;
}

}  // namespace

MpiBackend::MpiBackend(const bootstrap::WorldInfo& world, const bootstrap::Probe& launcher) {
  float16_ops_.fill(MPI_OP_NULL);
  bfloat16_ops_.fill(MPI_OP_NULL);
  const int provided = start_mpi(world, launcher);
  try {
    // The background loop calls MPI, not the thread that initialised it.
    if (provided < MPI_THREAD_SERIALIZED) {
      throw BackendError(str_cat("MPI: the library offers only ",
                                 bootstrap::thread_level_name(provided),
                                 "; the MPI backend needs MPI_THREAD_SERIALIZED or better"));
    }
    make_handles(world);
  } catch (...) {
    release();
    throw;
  }
}

MpiBackend::MpiBackend(MPI_Comm comm) : comm_(comm) {
  for (auto* ops : {&float16_ops_, &bfloat16_ops_, &uint8_ops_, &int8_ops_, &int16_ops_}) {
    ops->fill(MPI_OP_NULL);
  }
  try {
    HVD_MPI_CHECK(MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN));
    HVD_MPI_CHECK(MPI_Comm_rank(comm_, &rank_));
    HVD_MPI_CHECK(MPI_Comm_size(comm_, &size_));
    make_types();
  } catch (...) {
    release();
    throw;
  }
}

std::unique_ptr<MpiBackend> MpiBackend::split(const std::vector<int>& ranks) {
  int key = -1;
  for (size_t i = 0; i < ranks.size(); ++i) {
    if (ranks[i] == rank_) key = static_cast<int>(i);
  }
  MPI_Comm sub = MPI_COMM_NULL;
  HVD_MPI_CHECK(MPI_Comm_split(comm_, key >= 0 ? 0 : MPI_UNDEFINED, key, &sub));
  if (sub == MPI_COMM_NULL) return nullptr;
  return std::unique_ptr<MpiBackend>(new MpiBackend(sub));
}

MpiBackend::~MpiBackend() { release(); }

int MpiBackend::start_mpi(const bootstrap::WorldInfo& world, const bootstrap::Probe& launcher) {
  int initialized = 0, finalized = 0;
  HVD_MPI_CHECK(MPI_Finalized(&finalized));
  if (finalized) {
    throw BackendError(
        "MPI: already finalised in this process, and MPI cannot be started again; the MPI "
        "backend supports one hvd::init per process");
  }
  HVD_MPI_CHECK(MPI_Initialized(&initialized));
  int provided = MPI_THREAD_SINGLE;
  if (initialized) {
    HVD_MPI_CHECK(MPI_Query_thread(&provided));
    return provided;
  }
  if (!launcher.applies) {
    throw ConfigError(str_cat(
        env::kBackend, "=mpi: the MPI backend needs the ranks to be started by an MPI launcher ",
        "(mpirun / mpiexec, or srun --mpi=pmix), but this process was not: ", launcher.reason,
        "; the bootstrap method was '", world.method, "'. Start the job with mpirun, or use ",
        env::kBackend, "=ring (the default) under hvdrun"));
  }
  HVD_MPI_CHECK(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided));
  finalize_ = true;
  return provided;
}

void MpiBackend::make_handles(const bootstrap::WorldInfo& world) {
  HVD_MPI_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &comm_));
  HVD_MPI_CHECK(MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN));
  HVD_MPI_CHECK(MPI_Comm_rank(comm_, &rank_));
  HVD_MPI_CHECK(MPI_Comm_size(comm_, &size_));
  if (rank_ != world.rank || size_ != world.size) {
    throw ConfigError(str_cat("MPI backend: MPI_COMM_WORLD says rank ", rank_, " of ", size_,
                              ", but the bootstrap ('", world.method, "') says rank ", world.rank,
                              " of ", world.size, "; MPI and the bootstrap must see one launch"));
  }
  make_types();
}

void MpiBackend::make_types() {
  float16_ = create_2byte_type("hvd_float16");
  bfloat16_ = create_2byte_type("hvd_bfloat16");
  create_ops<DataType::kFloat16>(float16_ops_);
  create_ops<DataType::kBFloat16>(bfloat16_ops_);
  create_ops<DataType::kUInt8>(uint8_ops_);
  create_ops<DataType::kInt8>(int8_ops_);
  create_ops<DataType::kInt16>(int16_ops_);
}

void MpiBackend::release() noexcept {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) {
    for (auto* ops : {&float16_ops_, &bfloat16_ops_, &uint8_ops_, &int8_ops_, &int16_ops_}) {
      for (MPI_Op& op : *ops) {
        if (op != MPI_OP_NULL) MPI_Op_free(&op);
      }
    }
    for (MPI_Datatype* type : {&float16_, &bfloat16_}) {
      if (*type != MPI_DATATYPE_NULL) MPI_Type_free(type);
    }
    if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
    if (finalize_) MPI_Finalize();
  }
  finalize_ = false;
}

bool MpiBackend::supports(Device device, DataType dtype, ReduceOp op) const {
  if (op == ReduceOp::kAdasum) return device.is_cpu() && adasum::supports_dtype(dtype);
  return device.is_cpu() && op != ReduceOp::kAverage;
}

MPI_Datatype MpiBackend::type_of(DataType dtype) const {
  if (dtype == DataType::kFloat16) return float16_;
  if (dtype == DataType::kBFloat16) return bfloat16_;
  const MPI_Datatype type = builtin_type(dtype);
  HVD_CHECK(type != MPI_DATATYPE_NULL, "unknown DataType ", static_cast<int>(dtype));
  return type;
}

MPI_Op MpiBackend::op_of(DataType dtype, ReduceOp op) const {
  if (dtype == DataType::kFloat16) return float16_ops_[half_op_index(op)];
  if (dtype == DataType::kBFloat16) return bfloat16_ops_[half_op_index(op)];
  if (dtype == DataType::kUInt8) return uint8_ops_[half_op_index(op)];
  if (dtype == DataType::kInt8) return int8_ops_[half_op_index(op)];
  if (dtype == DataType::kInt16) return int16_ops_[half_op_index(op)];
  const MPI_Op mpi_op = builtin_op(op);
  HVD_CHECK(mpi_op != MPI_OP_NULL, "the MPI backend got ReduceOp ", op_name(op),
            "; the executor must not pass it");
  return mpi_op;
}

void MpiBackend::check_counts(const std::vector<size_t>& counts, const char* what) const {
  HVD_CHECK(counts.size() == static_cast<size_t>(size_), what, ": ", counts.size(), " counts for ",
            size_, " ranks");
}

void MpiBackend::allreduce(BufferView buf, ReduceOp op) {
  const MPI_Datatype type = type_of(buf.dtype);
  const MPI_Op mpi_op = op_of(buf.dtype, op);
  // Every rank has the same count, so every rank makes the same calls.
  for (size_t first = 0; first < buf.count; first += kMaxCount) {
    const BufferView part = buf.slice(first, std::min(kMaxCount, buf.count - first));
    HVD_MPI_CHECK(
        MPI_Allreduce(MPI_IN_PLACE, part.data, static_cast<int>(part.count), type, mpi_op, comm_));
  }
}

void MpiBackend::broadcast(BufferView buf, int root) {
  HVD_CHECK(root >= 0 && root < size_, "broadcast root ", root, " of ", size_, " ranks");
  const MPI_Datatype type = type_of(buf.dtype);
  for (size_t first = 0; first < buf.count; first += kMaxCount) {
    const BufferView part = buf.slice(first, std::min(kMaxCount, buf.count - first));
    HVD_MPI_CHECK(MPI_Bcast(part.data, static_cast<int>(part.count), type, root, comm_));
  }
}

void MpiBackend::allgatherv(BufferView in, BufferView out, const std::vector<size_t>& counts) {
  check_counts(counts, "allgatherv");
  const IntCounts c = int_counts(counts, "MPI_Allgatherv");
  const auto mine = static_cast<size_t>(rank_);
  HVD_CHECK(in.count == counts[mine], "allgatherv: ", in.count, " elements in, count ",
            counts[mine]);
  HVD_CHECK(out.count >= c.total, "allgatherv: output of ", out.count, " for ", c.total);
  const MPI_Datatype type = type_of(in.dtype);
  HVD_MPI_CHECK(MPI_Allgatherv(in.data, c.counts[mine], type, out.data, c.counts.data(),
                               c.displs.data(), type, comm_));
}

void MpiBackend::reducescatter(BufferView in, BufferView out, const std::vector<size_t>& counts,
                               ReduceOp op) {
  check_counts(counts, "reducescatter");
  const IntCounts c = int_counts(counts, "MPI_Reduce_scatter");
  HVD_CHECK(in.count == c.total, "reducescatter: ", in.count, " elements in, counts sum to ",
            c.total);
  HVD_CHECK(out.count >= counts[static_cast<size_t>(rank_)], "reducescatter: output of ", out.count,
            " for a block of ", counts[static_cast<size_t>(rank_)]);
  HVD_MPI_CHECK(MPI_Reduce_scatter(in.data, out.data, c.counts.data(), type_of(in.dtype),
                                   op_of(in.dtype, op), comm_));
}

void MpiBackend::alltoall(BufferView in, const std::vector<size_t>& send_counts, BufferView out,
                          const std::vector<size_t>& recv_counts) {
  check_counts(send_counts, "alltoall send");
  check_counts(recv_counts, "alltoall receive");
  const IntCounts send = int_counts(send_counts, "MPI_Alltoallv");
  const IntCounts recv = int_counts(recv_counts, "MPI_Alltoallv");
  HVD_CHECK(in.count >= send.total, "alltoall: ", in.count, " elements in, sends ", send.total);
  HVD_CHECK(out.count >= recv.total, "alltoall: output of ", out.count, " for ", recv.total);
  const MPI_Datatype type = type_of(in.dtype);
  HVD_MPI_CHECK(MPI_Alltoallv(in.data, send.counts.data(), send.displs.data(), type, out.data,
                              recv.counts.data(), recv.displs.data(), type, comm_));
}

void MpiBackend::adasum(BufferView buf, const std::vector<size_t>& tensor_counts) {
  // One exchange may exceed MPI's int count: both sides cut it into the same chunks.
  const auto exchange = [this](int peer, const void* send, size_t send_bytes, void* recv,
                               size_t recv_bytes) {
    constexpr int kTag = 0x4144;  // "AD"; the background thread runs one collective at a time
    for (size_t at = 0; at < std::max(send_bytes, recv_bytes); at += kMaxCount) {
      const size_t s = send_bytes > at ? std::min(kMaxCount, send_bytes - at) : 0;
      const size_t r = recv_bytes > at ? std::min(kMaxCount, recv_bytes - at) : 0;
      HVD_MPI_CHECK(MPI_Sendrecv(static_cast<const char*>(send) + at, static_cast<int>(s),
                                 MPI_BYTE, peer, kTag, static_cast<char*>(recv) + at,
                                 static_cast<int>(r), MPI_BYTE, peer, kTag, comm_,
                                 MPI_STATUS_IGNORE));
    }
  };
  adasum::allreduce(rank_, size_, buf, tensor_counts, exchange, adasum_scratch_);
}

void MpiBackend::barrier() { HVD_MPI_CHECK(MPI_Barrier(comm_)); }

}  // namespace hvd::backends::mpi
