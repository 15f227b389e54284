// SPDX-License-Identifier: Apache-2.0
#pragma once
// The "mpi" column: MPI_Allreduce (in place), MPI_Bcast and MPI_Allgather on MPI_COMM_WORLD,
// Open MPI's own choice of algorithm. Only where MPI is already running in this process
// (under mpirun, libhvd's mpi bootstrap initialised it): this peer never starts or ends MPI.

#include <memory>

#include "bench/collective_impl.h"

namespace hvd::bench {

/// Whether MPI has been initialised (and not finalised) in this process.
bool mpi_running();

class MpiPeer final : public Impl {
 public:
  std::string name() const override { return "mpi"; }
  RunOnce prepare(Op op, const std::string& algorithm, Buffers& bufs, ReduceOp redop,
                  int root) override;
  void reduce(std::vector<double>& values, ReduceOp op) override;
  void barrier() override;
};

}  // namespace hvd::bench
