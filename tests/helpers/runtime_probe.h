// SPDX-License-Identifier: Apache-2.0
#pragma once
// Shared by runtime_probe's files: failures are counted by expect() and end the run by must().

#include <string>

#include "hvd/hvd.h"

/// Counts a failed check (printed with the rank); main() exits 1 when any failed.
void expect(bool ok, const std::string& what);
/// Exits 3 with the status's message when a collective failed.
void must(const hvd::Status& s, const std::string& what);

/// Every dtype and op, counts 0, 1 and a prime, with scale factors (runtime_probe_typed.cc).
void allreduce_every_dtype_and_op();
/// One float32 sum of 64 MiB.
void allreduce_64_mib();
