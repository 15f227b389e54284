// SPDX-License-Identifier: Apache-2.0
// libhvd's dtypes and ops as NCCL's (nccl.h only: no library call, no GPU).

#include "backends/nccl/nccl_types.h"

#include <doctest/doctest.h>

#include <set>

#include "hvd/error.h"

namespace nccl = hvd::backends::nccl;
using hvd::DataType;
using hvd::ReduceOp;

TEST_CASE("nccl types: every dtype maps to the NCCL type of the same width and kind") {
  CHECK(nccl::nccl_dtype(DataType::kUInt8) == ncclUint8);
  CHECK(nccl::nccl_dtype(DataType::kInt32) == ncclInt32);
  CHECK(nccl::nccl_dtype(DataType::kInt64) == ncclInt64);
  CHECK(nccl::nccl_dtype(DataType::kFloat16) == ncclFloat16);
  CHECK(nccl::nccl_dtype(DataType::kBFloat16) == ncclBfloat16);
  CHECK(nccl::nccl_dtype(DataType::kFloat32) == ncclFloat32);
  CHECK(nccl::nccl_dtype(DataType::kFloat64) == ncclFloat64);
  CHECK(nccl::nccl_dtype(DataType::kInt8) == ncclInt8);
  std::set<int> distinct;
  for (DataType t : {DataType::kUInt8, DataType::kInt8, DataType::kInt32, DataType::kInt64,
                     DataType::kFloat16, DataType::kBFloat16, DataType::kFloat32,
                     DataType::kFloat64}) {
    distinct.insert(static_cast<int>(nccl::nccl_dtype(t)));
  }
  CHECK(distinct.size() == 8);
}

TEST_CASE("nccl types: int16, which NCCL lacks, is a backend error that says so") {
  CHECK_THROWS_WITH_AS(nccl::nccl_dtype(DataType::kInt16),
                       doctest::Contains("NCCL has no int16 type"), hvd::BackendError);
}

TEST_CASE("nccl types: sum, min, max and product map, and average never reaches NCCL") {
  CHECK(nccl::nccl_op(ReduceOp::kSum) == ncclSum);
  CHECK(nccl::nccl_op(ReduceOp::kMin) == ncclMin);
  CHECK(nccl::nccl_op(ReduceOp::kMax) == ncclMax);
  CHECK(nccl::nccl_op(ReduceOp::kProduct) == ncclProd);
  // The executor sums and scales: ncclAvg would divide integers differently from the host.
  CHECK_THROWS_AS(nccl::nccl_op(ReduceOp::kAverage), hvd::InternalError);
}
