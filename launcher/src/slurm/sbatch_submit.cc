// SPDX-License-Identifier: Apache-2.0
#include "slurm/sbatch_submit.h"

#include <algorithm>

#include "hvd/error.h"
#include "hvd/str_cat.h"
#include "proc/command_output.h"
#include "slurm/slurm_tools.h"

namespace hvd::launcher::slurm {
namespace {

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

}  // namespace

std::string submit_batch_script(const std::string& script, const EnvMap& env,
                                std::chrono::seconds limit) {
  const std::string sbatch = slurm::find_slurm_tool("sbatch", env);
  proc::OutputLimits limits;
  limits.timeout = limit;
  limits.max_bytes = 4096;  // a job id, perhaps ";cluster"
  proc::CommandInput input;
  input.stdin_bytes = script;
  input.capture_stderr = true;
  const proc::CommandOutput r = proc::run_for_output({sbatch, "--parsable"}, env, limits, input);
  // One line, as every hvdrun error: sbatch may say several ("error: ..." then "fatal: ...").
  std::string said = trim(r.err);
  std::replace(said.begin(), said.end(), '\n', ' ');
  if (r.timed_out) {
    throw SchedulerError(str_cat("sbatch did not answer within ", limit.count(),
                                 " s and was stopped; is slurmctld up? (scontrol ping); the job "
                                 "may or may not have been queued: check squeue --me",
                                 said.empty() ? "" : "; it said: " + said));
  }
  if (r.exit_code != 0 || r.cut) {
    throw SchedulerError(
        str_cat("sbatch rejected the script: ", said.empty() ? "no message" : said));
  }
  // --parsable prints "jobid" or "jobid;cluster". Warnings on stderr do not mean failure.
  const std::string id = trim(r.out);
  return id.substr(0, id.find(';'));
}

}  // namespace hvd::launcher::slurm
