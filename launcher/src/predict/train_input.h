// SPDX-License-Identifier: Apache-2.0
#pragma once
// `hvdrun predict`'s inputs read from files: any JSON file, and the step's figures from
// hvd-train's --json report of a 1-rank run. Every field is type- and range-checked
// (util/json_fields.h): a wrong one is a ConfigError naming the file and the field.

#include <string>

#include <nlohmann/json.hpp>

#include "predict/cost_model.h"

namespace hvd::launcher::predict {

/// The parsed content of `path`. Throws ConfigError naming the file when it cannot be read
/// (a directory, missing, unreadable) or is not JSON (including a number like 1e999).
nlohmann::json read_json(const std::string& path);

/// The step of hvd-train JSON `train` (read from `path`): compute time, gradient bytes,
/// gradient tensors and batch; the rest of Workload keeps its defaults. Throws ConfigError when
/// it is not hvd-train output of a 1-rank run, or a field has the wrong type or range.
Workload workload_from_train(const nlohmann::json& train, const std::string& path);

}  // namespace hvd::launcher::predict
