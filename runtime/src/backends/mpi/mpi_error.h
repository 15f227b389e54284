// SPDX-License-Identifier: Apache-2.0
#pragma once
// HVD_MPI_CHECK: wraps an MPI call's return code (docs/errors.md, rule 3). Anything but
// MPI_SUCCESS throws BackendError with the call's name and MPI's own error string. MPI returns
// codes only on a communicator whose error handler is MPI_ERRORS_RETURN; under the default
// MPI_ERRORS_ARE_FATAL it aborts the job before the code reaches us.

#include <mpi.h>

#include <string>

#include "hvd/error.h"
#include "hvd/str_cat.h"

namespace hvd::backends::mpi {

/// MPI's text for an error code, e.g. "MPI_ERR_COUNT: invalid count argument".
inline std::string mpi_error_string(int code) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS) {
    return str_cat("MPI error code ", code);
  }
  return std::string(text, static_cast<size_t>(length));
}

namespace detail {
/// Throws BackendError for the failed `call` (its source text; only the name before '(' is
/// kept).
[[noreturn]] inline void mpi_call_failed(const char* call, int code) {
  std::string name(call);
  name = name.substr(0, name.find('('));
  throw BackendError(str_cat("MPI: ", name, " failed: ", mpi_error_string(code)));
}
}  // namespace detail

}  // namespace hvd::backends::mpi

#define HVD_MPI_CHECK(call)                                              \
  do {                                                                   \
    const int hvd_mpi_rc_ = (call);                                      \
    if (hvd_mpi_rc_ != MPI_SUCCESS) {                                    \
      ::hvd::backends::mpi::detail::mpi_call_failed(#call, hvd_mpi_rc_); \
    }                                                                    \
  } while (0)
