// SPDX-License-Identifier: Apache-2.0
#pragma once
// Sharing rank 0's ncclUniqueId with every rank over a Rank0Broadcast (the control channel),
// header-only so that its host side is unit-tested without a GPU or an NCCL call.

#include <nccl.h>

#include <cstring>
#include <string>

#include "backends/rank0_broadcast.h"
#include "hvd/error.h"
#include "hvd/str_cat.h"

namespace hvd::backends::nccl {

/// Rank 0 makes the id with make_id() (it names rank 0's NCCL bootstrap listener); every rank
/// gets it through `broadcast`. Throws BootstrapError when what arrives is not an id's size.
template <typename MakeId>
ncclUniqueId share_unique_id(const Rank0Broadcast& broadcast, int rank, MakeId make_id) {
  ncclUniqueId id{};
  std::string mine;
  if (rank == 0) {
    id = make_id();
    mine.assign(id.internal, sizeof(id.internal));
  }
  const std::string value = broadcast(mine);
  if (value.size() != sizeof(id.internal)) {
    throw BootstrapError(str_cat("the NCCL unique id from rank 0 has ", value.size(),
                                 " bytes instead of ", sizeof(id.internal),
                                 ": do all ranks use the same NCCL version?"));
  }
  std::memcpy(id.internal, value.data(), sizeof(id.internal));
  return id;
}

}  // namespace hvd::backends::nccl
