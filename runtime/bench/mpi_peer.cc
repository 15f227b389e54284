// SPDX-License-Identifier: Apache-2.0
#include "bench/mpi_peer.h"

#include <mpi.h>

#include <climits>

#include "hvd/error.h"
#include "hvd/str_cat.h"

namespace hvd::bench {
namespace {

void mpi_check(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING] = {};
  int len = 0;
  MPI_Error_string(rc, text, &len);
  throw BackendError(str_cat("hvd-bench: MPI peer: ", what, " failed: ", std::string(text, len)));
}

MPI_Datatype mpi_type(DataType dtype) {
  switch (dtype) {
    case DataType::kFloat64:
      return MPI_DOUBLE;
    case DataType::kInt32:
      return MPI_INT32_T;
    case DataType::kInt64:
      return MPI_INT64_T;
    default:
      return MPI_FLOAT;
  }
}

MPI_Op mpi_op(ReduceOp op) {
  switch (op) {
    case ReduceOp::kMin:
      return MPI_MIN;
    case ReduceOp::kMax:
      return MPI_MAX;
    case ReduceOp::kProduct:
      return MPI_PROD;
    default:
      return MPI_SUM;
  }
}

int int_count(size_t count) {
  if (count > static_cast<size_t>(INT_MAX)) {
    throw UsageError(str_cat("hvd-bench: ", count, " elements exceed MPI's int counts"));
  }
  return static_cast<int>(count);
}

}  // namespace

bool mpi_running() {
  int initialized = 0;
  int finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  return initialized != 0 && finalized == 0;
}

RunOnce MpiPeer::prepare(Op op, const std::string& /*algorithm*/, Buffers& bufs, ReduceOp redop,
                         int root) {
  const MPI_Datatype type = mpi_type(bufs.dtype);
  void* out = bufs.out.data();
  switch (op) {
    case Op::kAllreduce: {
      const int n = int_count(bufs.out.size() / dtype_size(bufs.dtype));
      const MPI_Op mop = mpi_op(redop);
      return [out, n, type, mop] {
        mpi_check(MPI_Allreduce(MPI_IN_PLACE, out, n, type, mop, MPI_COMM_WORLD), "MPI_Allreduce");
      };
    }
    case Op::kBroadcast: {
      const int n = int_count(bufs.count);
      return [out, n, type, root] {
        mpi_check(MPI_Bcast(out, n, type, root, MPI_COMM_WORLD), "MPI_Bcast");
      };
    }
    case Op::kAllgather: {
      const int n = int_count(bufs.count);
      const void* in = bufs.in.data();
      return [in, out, n, type] {
        mpi_check(MPI_Allgather(in, n, type, out, n, type, MPI_COMM_WORLD), "MPI_Allgather");
      };
    }
  }
  return [] {};
}

void MpiPeer::reduce(std::vector<double>& values, ReduceOp op) {
  mpi_check(MPI_Allreduce(MPI_IN_PLACE, values.data(), int_count(values.size()), MPI_DOUBLE,
                          mpi_op(op), MPI_COMM_WORLD),
            "MPI_Allreduce");
}

void MpiPeer::barrier() { mpi_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier"); }

}  // namespace hvd::bench
