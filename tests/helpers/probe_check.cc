// SPDX-License-Identifier: Apache-2.0
#include "probe_check.h"

#include <cstdio>
#include <cstdlib>

#include "hvd/hvd.h"

namespace {
int failures = 0;
}  // namespace

void expect(bool ok, const std::string& what) {
  if (!ok) {
    std::fprintf(stderr, "rank %d: FAILED: %s\n", hvd::rank(), what.c_str());
    ++failures;
  }
}

void must(const hvd::Status& s, const std::string& what) {
  if (!s.ok()) {
    std::fprintf(stderr, "rank %d: %s: %s\n", hvd::rank(), what.c_str(), s.message().c_str());
    std::exit(3);
  }
}

int probe_failures() { return failures; }
