// SPDX-License-Identifier: Apache-2.0
#pragma once
// The launch plan as JSON, for --dry-run.

#include <nlohmann/json.hpp>

#include "plan/launch_plan.h"

namespace hvd::launcher::plan {

nlohmann::json to_json(const LaunchPlan& plan);

}  // namespace hvd::launcher::plan
