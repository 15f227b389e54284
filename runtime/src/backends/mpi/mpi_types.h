// SPDX-License-Identifier: Apache-2.0
#pragma once
// MPI's built-in datatypes and reduction ops for our DataType and ReduceOp: one table for the
// MPI backend and hvd-bench's MPI peer. float16 and bfloat16 have no built-in MPI type (the
// backend registers its own), and kAverage no built-in op (the executor sums and scales).

#include <mpi.h>

#include "hvd/tensor.h"

namespace hvd::backends::mpi {

/// MPI_DATATYPE_NULL for float16 and bfloat16.
inline MPI_Datatype builtin_type(DataType dtype) {
  switch (dtype) {
    case DataType::kUInt8:
      return MPI_UINT8_T;
    case DataType::kInt32:
      return MPI_INT32_T;
    case DataType::kInt64:
      return MPI_INT64_T;
    case DataType::kFloat32:
      return MPI_FLOAT;
    case DataType::kFloat64:
      return MPI_DOUBLE;
    case DataType::kInt8:
      return MPI_INT8_T;
    case DataType::kInt16:
      return MPI_INT16_T;
    case DataType::kFloat16:
    case DataType::kBFloat16:
      break;
  }
  return MPI_DATATYPE_NULL;
}

/// MPI_OP_NULL for kAverage and kAdasum.
inline MPI_Op builtin_op(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum:
      return MPI_SUM;
    case ReduceOp::kMin:
      return MPI_MIN;
    case ReduceOp::kMax:
      return MPI_MAX;
    case ReduceOp::kProduct:
      return MPI_PROD;
    case ReduceOp::kAverage:
    case ReduceOp::kAdasum:
      break;
  }
  return MPI_OP_NULL;
}

}  // namespace hvd::backends::mpi
