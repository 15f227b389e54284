// SPDX-License-Identifier: Apache-2.0
#pragma once
// The checks of the libhvd probes (runtime_probe, process_set_probe): a failed expect() is
// printed with the rank ("FAILED", which the tests' FAIL_REGULAR_EXPRESSION looks for) and
// counted; a failed must() ends the rank with exit code 3.

#include <string>

#include "hvd/status.h"

/// Counts a failed check (printed with the rank); main() exits 1 when any failed.
void expect(bool ok, const std::string& what);
/// Exits 3 with the status's message when an operation that must work failed.
void must(const hvd::Status& s, const std::string& what);
/// How many expect() calls failed so far.
int probe_failures();
