// SPDX-License-Identifier: Apache-2.0
#pragma once
// The verdict as text: a table per node, a table per link, the medians, and what is flagged.

#include <ostream>

#include "preflight/verdict.h"

namespace hvd::launcher::preflight {

void print_verdict(std::ostream& out, const Verdict& verdict);

}  // namespace hvd::launcher::preflight
