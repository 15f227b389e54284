// SPDX-License-Identifier: Apache-2.0
#pragma once
// `horovodrun --check-build`: the build report in Horovod 0.28.1's exact text (anchors.md §1),
// for scripts that grep it ("[X] PyTorch", "[X] NCCL"). hvdrun's built-in TCP ring and store
// play Gloo's part, so Gloo's rows show them; DDL and CCL are never built.

#include <string>

#include "check/build_report.h"

namespace hvd::launcher::check {

/// The Horovod version whose API hvdrun.torch and the horovod alias offer.
inline constexpr const char* kHorovodApiVersion = "0.28.1";

/// Horovod's --check-build text for `report`, byte for byte the shape Horovod prints
/// (including the four spaces after the last "Gloo").
std::string format_horovod_text(const BuildReport& report);

}  // namespace hvd::launcher::check
