// SPDX-License-Identifier: Apache-2.0
#pragma once
// The names of the shm transport's segments, and the PID namespace that says whether a peer's
// pid means anything here.

#include <string>

namespace hvd::backends::ring {

/// This process's PID namespace ("pid:[4026531836]", or "-" when unknown): a peer's pid names
/// its process only within the same namespace, so only there is it checked for liveness.
std::string pid_namespace();

/// The run id as it may appear in a file name (1 to 64 of [0-9A-Za-z_-]: no '/', no ".."), or
/// "norun" for none or anything else. hvdrun checks ids the same way
/// (launcher/src/exec/shm_cleanup.h).
std::string name_safe(const std::string& id);

/// "/hvd-<run id>-<pid>-<scope hash>-<rank>-<random>": the run id first, so that hvdrun (and
/// its guard, after a kill -9 of hvdrun) can remove every segment of its run that a rank killed
/// during setup left in /dev/shm, and nothing of any other run.
std::string segment_name(const std::string& run_id, const std::string& scope, int rank);

}  // namespace hvd::backends::ring
