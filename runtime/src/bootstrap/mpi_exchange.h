// SPDX-License-Identifier: Apache-2.0
#pragma once
// MpiExchange: the MPI session (MPI_Init_thread ... MPI_Finalize, unless someone else, such as
// mpi4py, initialised MPI first) and the allgather an ExchangeStore needs, over a duplicate of
// MPI_COMM_WORLD so that it never matches anyone else's messages. The allgather is
// non-blocking (MPI_Iallgather + MPI_Iallgatherv) and polled against a deadline, so that a
// missing rank ends in TimeoutError rather than a hang; after a timeout the communicator is
// left with a pending operation, so every later call throws BootstrapError.

#include <mpi.h>

#include <chrono>
#include <string>
#include <vector>

#include "bootstrap/exchange_store.h"

namespace hvd::bootstrap {

class MpiExchange final : public Exchange {
 public:
  /// Initialises MPI if needed, asking for MPI_THREAD_MULTIPLE and accepting SERIALIZED.
  /// Throws BackendError when MPI fails, was already finalised, or offers a lower thread level.
  MpiExchange();
  /// Frees the communicator; MPI_Finalize if this object called MPI_Init_thread.
  ~MpiExchange() override;
  MpiExchange(const MpiExchange&) = delete;
  MpiExchange& operator=(const MpiExchange&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string name() const override { return "MPI"; }
  std::vector<std::string> allgather(const std::string& mine,
                                     std::chrono::milliseconds timeout) override;

  /// The private duplicate of MPI_COMM_WORLD (errors return rather than abort).
  MPI_Comm comm() const { return comm_; }
  /// MPI_Comm_split_type(SHARED): this rank's place among the ranks sharing its memory.
  void shared_memory_rank(int& local_rank, int& local_size) const;

 private:
  // Waits for `request` until `deadline`; TimeoutError names `what`.
  void wait(MPI_Request& request, std::chrono::steady_clock::time_point deadline, const char* what);

  bool finalize_ = false;  // this object initialised MPI
  bool broken_ = false;    // an operation timed out and is still pending
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 1;
};

}  // namespace hvd::bootstrap
