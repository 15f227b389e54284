// SPDX-License-Identifier: Apache-2.0
#pragma once
// MpiBackend: the host-tensor backend over MPI (HVD_BACKEND=mpi): MPI_Allreduce in place,
// MPI_Bcast, MPI_Allgatherv, MPI_Reduce_scatter, MPI_Alltoallv and MPI_Barrier on a private
// duplicate of MPI_COMM_WORLD whose error handler returns codes (HVD_MPI_CHECK turns them into
// BackendError). MPI has no float16 or bfloat16: each is a committed 2-byte contiguous
// datatype, reduced by user-defined, commutative MPI_Ops that compute in float
// (reduce_kernels.h). Counts above INT_MAX elements: allreduce and broadcast go in chunks; the
// v-collectives throw BackendError (MPI-3's counts and displacements are int).
//
// Who starts and ends MPI. MPI can be initialised and finalised once per process, and the
// first to initialise it is the one to finalise it:
// - the mpi bootstrap (the default under mpirun) initialises MPI first; its store, which
//   outlives the runtime and so this backend, finalises it. This backend then never does;
// - a program that initialised MPI itself (mpi4py) finalises it; this backend never does;
// - otherwise (e.g. HVD_BOOTSTRAP=pmix under mpirun or srun --mpi=pmix) this backend calls
//   MPI_Init_thread, and MPI_Finalize when destroyed unless MPI_Finalized says someone already
//   did. It can only be the first because the bootstrap, which runs before it, did not use
//   MPI, and the bootstrap never starts using MPI later.
// A process that no MPI launcher started (hvdrun's ranks, which meet through hvdrun's store)
// is refused with ConfigError: MPI_Init there would make a 1-rank singleton world.
//
// Calls come from the background loop's thread, not the one that initialised MPI, so MPI must
// offer MPI_THREAD_SERIALIZED or better. A dead peer is not detected by this backend: MPI's
// launcher (mpirun, srun) ends the job instead.

#include <mpi.h>

#include <array>
#include <memory>
#include <string_view>
#include <vector>

#include "backends/backend.h"
#include "bootstrap/bootstrap_method.h"
#include "bootstrap/world_info.h"

namespace hvd::backends::mpi {

class MpiBackend final : public Backend {
 public:
  /// Collective: every rank constructs it together, on the thread that runs hvd::init.
  /// `launcher` is the mpi bootstrap's probe of the environment (bootstrap::probe_mpi), which
  /// says whether an MPI launcher started this process. Throws ConfigError when MPI is not
  /// initialised and no MPI launcher started the process, or when MPI's ranks differ from
  /// `world`; BackendError when MPI fails, was finalised, or offers a lower thread level.
  MpiBackend(const bootstrap::WorldInfo& world, const bootstrap::Probe& launcher);
  /// Frees the communicator, datatypes and ops; MPI_Finalize if this object initialised MPI.
  ~MpiBackend() override;
  MpiBackend(const MpiBackend&) = delete;
  MpiBackend& operator=(const MpiBackend&) = delete;

  /// Collective over every rank of this backend: a backend over the sub-communicator of
  /// `ranks` (sorted ranks of this communicator), by MPI_Comm_split; null on the other ranks.
  /// It never finalises MPI, and must go before this backend does.
  std::unique_ptr<MpiBackend> split(const std::vector<int>& ranks);

  std::string_view name() const override { return "mpi"; }
  /// Host memory, every dtype, every op but kAverage (the executor sums and scales); kAdasum
  /// for float16/32/64.
  bool supports(Device device, DataType dtype, ReduceOp op) const override;

  void allreduce(BufferView buf, ReduceOp op) override;
  void adasum(BufferView buf, const std::vector<size_t>& tensor_counts) override;
  void broadcast(BufferView buf, int root) override;
  void allgatherv(BufferView in, BufferView out, const std::vector<size_t>& counts) override;
  void reducescatter(BufferView in, BufferView out, const std::vector<size_t>& counts,
                     ReduceOp op) override;
  void alltoall(BufferView in, const std::vector<size_t>& send_counts, BufferView out,
                const std::vector<size_t>& recv_counts) override;
  void barrier() override;

 private:
  static constexpr size_t kHalfOps = 4;  // sum, min, max, product

  // A backend over `comm` (ownership taken), of a split.
  explicit MpiBackend(MPI_Comm comm);
  // Starts or adopts MPI; sets finalize_.
  int start_mpi(const bootstrap::WorldInfo& world, const bootstrap::Probe& launcher);
  // The communicator, the 2-byte datatypes and their ops.
  void make_handles(const bootstrap::WorldInfo& world);
  // The 2-byte datatypes and the ops (make_handles() after the communicator).
  void make_types();
  // Frees what make_handles() made and finalises MPI if this object initialised it.
  void release() noexcept;
  MPI_Datatype type_of(DataType dtype) const;
  MPI_Op op_of(DataType dtype, ReduceOp op) const;
  void check_counts(const std::vector<size_t>& counts, const char* what) const;

  MPI_Comm comm_ = MPI_COMM_NULL;
  MPI_Datatype float16_ = MPI_DATATYPE_NULL;
  MPI_Datatype bfloat16_ = MPI_DATATYPE_NULL;
  std::array<MPI_Op, kHalfOps> float16_ops_{};
  std::array<MPI_Op, kHalfOps> bfloat16_ops_{};
  // uint8, int8 and int16 move as MPI's types but reduce with libhvd's kernels: Open MPI 4.1's
  // AVX reductions saturate 8- and 16-bit sums (200 + 200 = 255 in uint8, 127 instead of -124
  // in int8, seen in runtime_probe_mpirun_np8), and every other backend wraps.
  std::array<MPI_Op, kHalfOps> uint8_ops_{};
  std::array<MPI_Op, kHalfOps> int8_ops_{};
  std::array<MPI_Op, kHalfOps> int16_ops_{};
  int rank_ = 0;
  int size_ = 1;
  std::vector<char> adasum_scratch_;
  bool finalize_ = false;  // this object called MPI_Init_thread
};

}  // namespace hvd::backends::mpi
