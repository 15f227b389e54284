// SPDX-License-Identifier: Apache-2.0
#pragma once
// libhvd's dtypes and reduction ops as NCCL's. Every DataType has an NCCL type (bfloat16
// since NCCL 2.10). kAverage has none on purpose: the executor sums and scales, in the same
// way for every backend, so it is a bug to pass it here (ncclAvg would also divide integers
// differently from the host path).

#include <nccl.h>

#include "hvd/error.h"
#include "hvd/tensor.h"

namespace hvd::backends::nccl {

inline ncclDataType_t nccl_dtype(DataType dtype) {
  switch (dtype) {
    case DataType::kUInt8:
      return ncclUint8;
    case DataType::kInt32:
      return ncclInt32;
    case DataType::kInt64:
      return ncclInt64;
    case DataType::kFloat16:
      return ncclFloat16;
    case DataType::kBFloat16:
      return ncclBfloat16;
    case DataType::kFloat32:
      return ncclFloat32;
    case DataType::kFloat64:
      return ncclFloat64;
    case DataType::kInt8:
      return ncclInt8;
    case DataType::kInt16:
      // NCCL has no 16-bit integer type; a reduction in another type would be wrong.
      throw BackendError("NCCL has no int16 type: int16 CUDA tensors cannot be reduced or moved "
                         "by the NCCL backend; use int32, or a CPU tensor");
  }
  throw InternalError(str_cat("unknown DataType ", static_cast<int>(dtype)));
}

/// Throws InternalError for kAverage (see above) and kAdasum (no GPU Adasum).
inline ncclRedOp_t nccl_op(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum:
      return ncclSum;
    case ReduceOp::kMin:
      return ncclMin;
    case ReduceOp::kMax:
      return ncclMax;
    case ReduceOp::kProduct:
      return ncclProd;
    case ReduceOp::kAverage:
    case ReduceOp::kAdasum:
      break;
  }
  throw InternalError(str_cat("ReduceOp ", op_name(op), " reached the NCCL backend, but the ",
                              "executor sums and scales"));
}

}  // namespace hvd::backends::nccl
