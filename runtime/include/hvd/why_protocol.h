// SPDX-License-Identifier: Apache-2.0
#pragma once
// The diagnostics contract between hvdrun and the ranks (`hvdrun why`, the stall verdict):
//  - hvdrun sends kWhySignal to a rank; libhvd (diag/why_responder.h) answers by writing its
//    state as JSON to the run's store under why_rank_key(rank), through the same authenticated
//    connection the bootstrap uses (nothing new listens). A Python rank's stack is dumped by
//    faulthandler on the same signal into HVD_WHY_DIR/py.<rank> (python/why/).
//  - the coordinator's stall inspector writes kWhyStallKey when a tensor waits too long, so
//    that hvdrun can collect the verdict without polling the ranks.
// SIGURG because its default action is to ignore it: a rank that installed no handler (a
// program that never loads libhvd or Python's handler) is not killed by the question.
#include <signal.h>

#include <string>

namespace hvd::why {

inline constexpr int kWhySignal = SIGURG;
inline constexpr const char* kWhyRankPrefix = "why/rank/";
inline constexpr const char* kWhyStallKey = "why/stall";
inline constexpr const char* kPythonDumpPrefix = "py.";

inline std::string why_rank_key(int rank) { return kWhyRankPrefix + std::to_string(rank); }

}  // namespace hvd::why
