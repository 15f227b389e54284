// SPDX-License-Identifier: Apache-2.0
#pragma once
// A libhvd call that must succeed: its failure ends hvd-train with the rank and what it did.

#include <string>

#include "hvd/error.h"
#include "hvd/hvd.h"
#include "hvd/str_cat.h"

namespace hvd::train {

inline void must(const Status& s, const std::string& what) {
  if (!s.ok())
    throw BackendError(str_cat("hvd-train: rank ", rank(), ": ", what, ": ", s.message()));
}

}  // namespace hvd::train
