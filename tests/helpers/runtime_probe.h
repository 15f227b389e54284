// SPDX-License-Identifier: Apache-2.0
#pragma once
// Shared by runtime_probe's files; expect() and must() are probe_check.h's.

#include <string>

#include "hvd/hvd.h"
#include "probe_check.h"

/// Every dtype and op, counts 0, 1 and a prime, with scale factors (runtime_probe_typed.cc).
void allreduce_every_dtype_and_op();
/// op=Adasum of three fused float64 tensors against the formula; at a size that is no power of
/// two, the usage error (runtime_probe_adasum.cc).
void allreduce_adasum(int rank, int size);
/// One float32 sum of 64 MiB.
void allreduce_64_mib();
