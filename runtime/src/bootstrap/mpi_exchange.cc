// SPDX-License-Identifier: Apache-2.0
#include "bootstrap/mpi_exchange.h"

#include <chrono>
#include <climits>
#include <thread>

#include "bootstrap/mpi_thread_level.h"
#include "hvd/error.h"
#include "hvd/str_cat.h"

namespace hvd::bootstrap {
namespace {

using Clock = std::chrono::steady_clock;

void mpi_check(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING] = {};
  int len = 0;
  MPI_Error_string(rc, text, &len);
  throw BackendError(str_cat("MPI: ", what, " failed: ", std::string(text, len)));
}

}  // namespace

MpiExchange::MpiExchange() {
  int initialized = 0, finalized = 0;
  mpi_check(MPI_Initialized(&initialized), "MPI_Initialized");
  mpi_check(MPI_Finalized(&finalized), "MPI_Finalized");
  if (finalized) throw BackendError("MPI: already finalised in this process; cannot bootstrap");
  int provided = MPI_THREAD_SINGLE;
  if (!initialized) {
    mpi_check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided), "MPI_Init_thread");
    finalize_ = true;
  } else {
    mpi_check(MPI_Query_thread(&provided), "MPI_Query_thread");
  }
  try {
    // The runtime calls MPI from its background thread, not the one that initialised it.
    if (provided < MPI_THREAD_SERIALIZED) {
      throw BackendError(str_cat("MPI: the library offers only ", thread_level_name(provided),
                                 "; the runtime needs MPI_THREAD_SERIALIZED or better"));
    }
    mpi_check(MPI_Comm_dup(MPI_COMM_WORLD, &comm_), "MPI_Comm_dup");
    mpi_check(MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
    mpi_check(MPI_Comm_rank(comm_, &rank_), "MPI_Comm_rank");
    mpi_check(MPI_Comm_size(comm_, &size_), "MPI_Comm_size");
  } catch (...) {
    if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
    if (finalize_) MPI_Finalize();
    throw;
  }
}

MpiExchange::~MpiExchange() {
  // Someone else (the MPI backend, mpi4py) may have finalised MPI already: then there is
  // nothing left to free. A communicator with a pending operation cannot be freed safely;
  // MPI_Finalize cleans it up.
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;
  if (comm_ != MPI_COMM_NULL && !broken_) MPI_Comm_free(&comm_);
  if (finalize_) MPI_Finalize();
}

void MpiExchange::shared_memory_rank(int& local_rank, int& local_size) const {
  MPI_Comm shared = MPI_COMM_NULL;
  mpi_check(MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &shared),
            "MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)");
  const int rc_rank = MPI_Comm_rank(shared, &local_rank);
  const int rc_size = MPI_Comm_size(shared, &local_size);
  MPI_Comm_free(&shared);
  mpi_check(rc_rank, "MPI_Comm_rank(shared)");
  mpi_check(rc_size, "MPI_Comm_size(shared)");
}

void MpiExchange::wait(MPI_Request& request, Clock::time_point deadline, const char* what) {
  // Polls, backing off to 1 ms sleeps: bootstrap exchanges are rare and latency barely matters.
  auto pause = std::chrono::microseconds(0);
  for (;;) {
    int done = 0;
    mpi_check(MPI_Test(&request, &done, MPI_STATUS_IGNORE), what);
    if (done) return;
    if (Clock::now() >= deadline) {
      broken_ = true;
      throw TimeoutError(str_cat("MPI: ", what, " on rank ", rank_, ": not every rank of ", size_,
                                 " arrived in time"));
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(std::chrono::microseconds(1000), pause + std::chrono::microseconds(50));
  }
}

std::vector<std::string> MpiExchange::allgather(const std::string& mine,
                                                std::chrono::milliseconds timeout) {
  if (broken_) {
    throw BootstrapError("MPI: an earlier exchange timed out; the bootstrap store is unusable");
  }
  if (mine.size() > static_cast<size_t>(INT_MAX)) {
    throw BootstrapError(str_cat("MPI: ", mine.size(), " bytes is too much for one exchange"));
  }
  const auto deadline = Clock::now() + timeout;
  int my_len = static_cast<int>(mine.size());
  std::vector<int> lens(static_cast<size_t>(size_));
  MPI_Request request = MPI_REQUEST_NULL;
  mpi_check(MPI_Iallgather(&my_len, 1, MPI_INT, lens.data(), 1, MPI_INT, comm_, &request),
            "MPI_Iallgather");
  wait(request, deadline, "MPI_Iallgather");

  std::vector<int> displs(static_cast<size_t>(size_));
  int64_t total = 0;
  for (size_t r = 0; r < lens.size(); ++r) {
    if (total + lens[r] > INT_MAX) throw BootstrapError("MPI: exchange over 2 GiB in total");
    displs[r] = static_cast<int>(total);
    total += lens[r];
  }
  std::string all(static_cast<size_t>(total), '\0');
  mpi_check(MPI_Iallgatherv(mine.data(), my_len, MPI_CHAR, all.data(), lens.data(), displs.data(),
                            MPI_CHAR, comm_, &request),
            "MPI_Iallgatherv");
  wait(request, deadline, "MPI_Iallgatherv");

  std::vector<std::string> blobs;
  blobs.reserve(lens.size());
  for (size_t r = 0; r < lens.size(); ++r) blobs.push_back(all.substr(displs[r], lens[r]));
  return blobs;
}

}  // namespace hvd::bootstrap
