// SPDX-License-Identifier: Apache-2.0
#include "bench/mpi_peer.h"

#include <mpi.h>

#include <climits>

#include "backends/mpi/mpi_error.h"
#include "backends/mpi/mpi_types.h"
#include "hvd/error.h"
#include "hvd/str_cat.h"

namespace hvd::bench {
namespace {

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
  const MPI_Datatype type = backends::mpi::builtin_type(bufs.dtype);
  void* out = bufs.out.data();
  switch (op) {
    case Op::kAllreduce: {
      const int n = int_count(bufs.out.size() / dtype_size(bufs.dtype));
      const MPI_Op mop = backends::mpi::builtin_op(redop);
      return [out, n, type, mop] {
        HVD_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, out, n, type, mop, MPI_COMM_WORLD));
      };
    }
    case Op::kBroadcast: {
      const int n = int_count(bufs.count);
      return [out, n, type, root] { HVD_MPI_CHECK(MPI_Bcast(out, n, type, root, MPI_COMM_WORLD)); };
    }
    case Op::kAllgather: {
      const int n = int_count(bufs.count);
      const void* in = bufs.in.data();
      return [in, out, n, type] {
        HVD_MPI_CHECK(MPI_Allgather(in, n, type, out, n, type, MPI_COMM_WORLD));
      };
    }
  }
  return [] {};
}

void MpiPeer::reduce(std::vector<double>& values, ReduceOp op) {
  HVD_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, values.data(), int_count(values.size()), MPI_DOUBLE,
                              backends::mpi::builtin_op(op), MPI_COMM_WORLD));
}

void MpiPeer::barrier() { HVD_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD)); }

}  // namespace hvd::bench
