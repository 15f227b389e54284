// SPDX-License-Identifier: Apache-2.0
#pragma once
// NcclComm: the NCCL communicator of all ranks, made from an ncclUniqueId that rank 0 creates
// and shares over the control channel's broadcast (nccl_unique_id.h): the lane is made on the
// first CUDA tensor, long after the bootstrap's store was let go.
//
// The communicator is non-blocking (ncclConfig_t.blocking = 0). A blocking one would wait
// inside ncclCommInitRankConfig, and inside the first collective while NCCL connects the
// peers, for as long as NCCL's own bootstrap allows, which is far longer than a job should
// hang when a rank died before joining. Non-blocking calls return ncclInProgress instead, and
// libhvd polls ncclCommGetAsyncError against its own deadline and aborts the communicator
// when it passes. Used only from the background loop's thread.

#include <nccl.h>

#include <chrono>

#include "backends/rank0_broadcast.h"
#include "bootstrap/world_info.h"

namespace hvd::backends::nccl {

class NcclComm {
 public:
  /// Collective: every rank calls it, with the CUDA device it drives already current. Throws
  /// BootstrapError/TimeoutError when the id exchange fails, TimeoutError when some rank does
  /// not join within `timeout` (the communicator is aborted then), BackendError for NCCL errors.
  NcclComm(const Rank0Broadcast& broadcast, const bootstrap::WorldInfo& world,
           std::chrono::milliseconds timeout);
  /// Finalises and destroys the communicator (aborts it when that fails or it was aborted).
  ~NcclComm();
  NcclComm(const NcclComm&) = delete;
  NcclComm& operator=(const NcclComm&) = delete;

  /// The communicator. Throws BackendError once it was aborted.
  ncclComm_t get() const;
  /// False while the last call is still being queued; throws BackendError (and aborts) when
  /// NCCL reported an asynchronous error, e.g. a peer that went away.
  bool enqueued();
  /// Ends all outstanding work at once and makes the communicator unusable. Never throws.
  void abort() noexcept;

 private:
  ncclComm_t comm_ = nullptr;
  bool aborted_ = false;
  std::chrono::milliseconds timeout_;
};

}  // namespace hvd::backends::nccl
