// SPDX-License-Identifier: Apache-2.0
#pragma once
// The name of an MPI thread-support level, for error messages of the MPI bootstrap and the MPI
// backend (both need MPI_THREAD_SERIALIZED or better, since libhvd calls MPI from its thread).

#include <mpi.h>

namespace hvd::bootstrap {

inline const char* thread_level_name(int level) {
  switch (level) {
    case MPI_THREAD_SINGLE:
      return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED:
      return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED:
      return "MPI_THREAD_SERIALIZED";
    case MPI_THREAD_MULTIPLE:
      return "MPI_THREAD_MULTIPLE";
    default:
      return "an unknown thread level";
  }
}

}  // namespace hvd::bootstrap
