// SPDX-License-Identifier: Apache-2.0
#pragma once
// HVD_CUDA_CHECK: wraps a CUDA runtime call's return code (docs/errors.md, rule 3). Anything
// but cudaSuccess throws BackendError with the call's name and CUDA's own error string.

#include <cuda_runtime.h>

#include <string>

#include "hvd/error.h"
#include "hvd/str_cat.h"

namespace hvd::backends::cuda {

namespace detail {
/// Throws BackendError for the failed `call` (its source text; only the name before '(' is
/// kept).
[[noreturn]] inline void cuda_call_failed(const char* call, cudaError_t code) {
  std::string name(call);
  name = name.substr(0, name.find('('));
  throw BackendError(
      str_cat("CUDA: ", name, " failed: ", cudaGetErrorName(code), ": ", cudaGetErrorString(code)));
}
}  // namespace detail

}  // namespace hvd::backends::cuda

#define HVD_CUDA_CHECK(call)                                                \
  do {                                                                      \
    const cudaError_t hvd_cuda_rc_ = (call);                                \
    if (hvd_cuda_rc_ != cudaSuccess) {                                      \
      ::hvd::backends::cuda::detail::cuda_call_failed(#call, hvd_cuda_rc_); \
    }                                                                       \
  } while (0)
