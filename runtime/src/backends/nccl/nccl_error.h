// SPDX-License-Identifier: Apache-2.0
#pragma once
// HVD_NCCL_CHECK: wraps an NCCL call's return code (docs/errors.md, rule 3). ncclSuccess and
// ncclInProgress pass: libhvd's communicator is non-blocking (nccl_comm.h), so calls may
// return ncclInProgress while they finish in the background, and the caller then waits on
// ncclCommGetAsyncError. Anything else throws BackendError with the call's name, NCCL's error
// string and its last error message.

#include <nccl.h>

#include <string>

#include "hvd/error.h"
#include "hvd/str_cat.h"

namespace hvd::backends::nccl {

/// "unhandled system error (run with NCCL_DEBUG=INFO for details): <NCCL's last message>".
inline std::string nccl_error_text(ncclResult_t code, ncclComm_t comm) {
  const char* last = ncclGetLastError(comm);
  std::string text = ncclGetErrorString(code);
  if (last != nullptr && *last != '\0') text += str_cat(": ", last);
  return text + " (NCCL_DEBUG=INFO in the environment makes NCCL say more)";
}

namespace detail {
[[noreturn]] inline void nccl_call_failed(const char* call, ncclResult_t code) {
  std::string name(call);
  name = name.substr(0, name.find('('));
  throw BackendError(str_cat("NCCL: ", name, " failed: ", nccl_error_text(code, nullptr)));
}
}  // namespace detail

}  // namespace hvd::backends::nccl

#define HVD_NCCL_CHECK(call)                                                \
  do {                                                                      \
    const ncclResult_t hvd_nccl_rc_ = (call);                               \
    if (hvd_nccl_rc_ != ncclSuccess && hvd_nccl_rc_ != ncclInProgress) {    \
      ::hvd::backends::nccl::detail::nccl_call_failed(#call, hvd_nccl_rc_); \
    }                                                                       \
  } while (0)
