// SPDX-License-Identifier: Apache-2.0
#pragma once
// torchrun's error file (TORCHELASTIC_ERROR_FILE), kept the way torchrun keeps it. When the user
// (or a tool above hvdrun) sets it, every rank gets a file of its own instead, in a folder hvdrun
// makes beside the user's file, where a program decorated with torch's @record writes its
// exception. When the job fails, the first failed rank's file, with torchrun's "errorCode" added
// (ErrorHandler.dump_error_file), or else hvdrun's description of the failure in the same
// format (ErrorHandler.record_exception), is written to the user's file.

#include <string>

#include <nlohmann/json.hpp>

#include "config/env_map.h"
#include "exec/run_outcome.h"
#include "plan/launch_plan.h"

namespace hvd::launcher::exec {

/// What goes to the user's file: `rank_error` (the failed rank's own file, parsed; null when it
/// wrote none or it was not JSON) with message.errorCode = `exit_code` as torchrun sets it, or
/// {"message": {"message": "ChildFailedError: <failure>", "extraInfo": {"py_callstack": "<N/A>",
/// "timestamp": "<timestamp>"}}} when there is no usable rank file.
nlohmann::json parent_error_json(const nlohmann::json& rank_error, int exit_code,
                                 const std::string& failure, long long timestamp);

class TorchelasticErrors {
 public:
  /// Does nothing unless `env` sets TORCHELASTIC_ERROR_FILE and `mode` starts each rank with an
  /// environment of its own (local and Slurm; under mpirun every rank keeps the user's file).
  /// Then makes the ranks' folder, <the file's folder>/.hvdrun-errors-XXXXXX (mkdtemp, 0700):
  /// beside the user's file because under Slurm ranks on every node must reach it. Throws
  /// ConfigError naming the variable when that folder cannot be made.
  TorchelasticErrors(const EnvMap& env, plan::Mode mode);
  /// Removes the ranks' folder.
  ~TorchelasticErrors();
  TorchelasticErrors(const TorchelasticErrors&) = delete;
  TorchelasticErrors& operator=(const TorchelasticErrors&) = delete;

  /// The ranks' folder, for plan::LaunchPlan::rank_error_dir; empty when inactive.
  const std::string& rank_dir() const { return rank_dir_; }

  /// After the last attempt (`attempt`): when a rank failed, writes the user's file (atomically).
  /// Throws ConfigError naming the variable when it cannot be written.
  void finish(const RunOutcome& outcome, int attempt) const;

 private:
  std::string user_file_;
  std::string rank_dir_;
};

}  // namespace hvd::launcher::exec
