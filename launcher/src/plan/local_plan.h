// SPDX-License-Identifier: Apache-2.0
#pragma once
// The plan of a local run: every rank on this machine, started by hvdrun itself.

#include <string>

#include "plan/launch_plan.h"
#include "plan/launch_request.h"

namespace hvd::launcher::plan {

/// Pure: `facts` and `endpoints` (store port 0 until the store listens; attach_store()) come in.
LaunchPlan build_local_plan(const LaunchRequest& request, const MachineFacts& facts,
                            const Endpoints& endpoints, const std::string& program);

}  // namespace hvd::launcher::plan
