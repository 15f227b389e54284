// SPDX-License-Identifier: Apache-2.0
#include "backends/nccl/nccl_comm.h"

#include <cstring>
#include <string>

#include "backends/cuda/cuda_stream.h"
#include "backends/nccl/nccl_error.h"
#include "backends/nccl/nccl_unique_id.h"
#include "hvd/error.h"

namespace hvd::backends::nccl {
NcclComm::NcclComm(const Rank0Broadcast& broadcast, const bootstrap::WorldInfo& world,
                   std::chrono::milliseconds timeout)
    : timeout_(timeout) {
  const ncclUniqueId id = share_unique_id(broadcast, world.rank, [] {
    ncclUniqueId made{};
    HVD_NCCL_CHECK(ncclGetUniqueId(&made));
    return made;
  });
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0;  // see the header: our deadline, not NCCL's
  try {
    HVD_NCCL_CHECK(ncclCommInitRankConfig(&comm_, world.size, id, world.rank, &config));
    const std::string what =
        str_cat("creating the NCCL communicator (rank ", world.rank, " of ", world.size, ")");
    cuda::poll_until(timeout, what.c_str(), [this] { return enqueued(); });
  } catch (...) {
    abort();  // a constructor that throws gets no destructor call
    throw;
  }
}

NcclComm::~NcclComm() {
  if (comm_ == nullptr) return;
  // Finalize flushes what is outstanding and may wait on peers: bounded like every other wait.
  const ncclResult_t started = ncclCommFinalize(comm_);
  bool clean = started == ncclSuccess || started == ncclInProgress;
  if (clean) {
    try {
      cuda::poll_until(timeout_, "finalising the NCCL communicator", [&] {
        ncclResult_t state = ncclSuccess;
        if (ncclCommGetAsyncError(comm_, &state) != ncclSuccess) return true;
        if (state == ncclInProgress) return false;
        clean = state == ncclSuccess;
        return true;
      });
    } catch (const std::exception&) {
      clean = false;  // a destructor cannot report it; aborting below frees everything anyway
    }
  }
  if (clean) {
    (void)ncclCommDestroy(comm_);
  } else {
    (void)ncclCommAbort(comm_);
  }
}

ncclComm_t NcclComm::get() const {
  if (aborted_) {
    throw BackendError(
        "NCCL: the communicator was aborted after an earlier error or timeout; CUDA tensors "
        "cannot be reduced any more in this run");
  }
  return comm_;
}

bool NcclComm::enqueued() {
  ncclResult_t state = ncclSuccess;
  HVD_NCCL_CHECK(ncclCommGetAsyncError(get(), &state));
  if (state == ncclInProgress) return false;
  if (state != ncclSuccess) {
    const std::string text = nccl_error_text(state, comm_);
    abort();
    throw BackendError(str_cat("NCCL: ", text));
  }
  return true;
}

void NcclComm::abort() noexcept {
  if (comm_ == nullptr || aborted_) return;
  (void)ncclCommAbort(comm_);  // frees the communicator
  comm_ = nullptr;
  aborted_ = true;
}

}  // namespace hvd::backends::nccl
