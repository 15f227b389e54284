// SPDX-License-Identifier: Apache-2.0
#pragma once
// Rendering a batch script from a mustache template (kainjow/mustache) and a site profile.

#include <string>
#include <vector>

#include "profile/site_profile.h"

namespace hvd::launcher::slurm {

struct BatchRequest {
  int nodes = 1;
  std::string time;             // Slurm time format; required
  std::string account;
  std::string partition;        // empty: the profile's
  std::string qos;              // empty: the profile's
  std::string job_name = "hvdrun";
  int gpus_per_node = -1;       // -1: the profile's node.gpus
  int ntasks_per_node = 0;      // 0: the profile's default ranks per node
  std::string log_file;         // #SBATCH --output; empty: hvdrun-%j.out
  int signal_lead_seconds = 0;  // > 0: #SBATCH --signal=B:SIG@LEAD, forwarded to the ranks
  std::string preempt_signal = "USR2";
  // #SBATCH --requeue and --open-mode=append, and hvdrun --requeue-on-signal in the job:
  // checkpoint and requeue on the preemption signal (exec/requeue.h).
  bool requeue_on_signal = false;
  bool exclusive = false;
  std::vector<std::string> extra_directives;  // --sbatch-arg values, as they are
  std::vector<std::string> launch;            // the whole line that runs hvdrun in the job
  // --preflight: the line that runs `hvdrun preflight --strict` first (its --json is added by
  // the script, named after the job id); empty: no preflight.
  std::vector<std::string> preflight;
  std::vector<std::string> explain;  // what hvdrun will run there, one comment line each
};

/// GPUs per node the script asks for: --gpus-per-node, else the profile's node.gpus.
int batch_gpus_per_node(const BatchRequest& request, const profile::SiteProfile& profile);

/// Ranks per node the script asks for: --ntasks-per-node, else one per GPU, else the profile's.
int batch_tasks_per_node(const BatchRequest& request, const profile::SiteProfile& profile);

/// Throws UsageError when the request does not fit the profile: a required account missing,
/// more GPUs per node than its nodes have, a time or node count over the partition's limit.
void check_batch_request(const BatchRequest& request, const profile::SiteProfile& profile);

/// The same without what only the script needs (the time and a required account): what
/// `hvdrun sbatch --explain` checks, since the step it shows does not depend on them.
void check_batch_shape(const BatchRequest& request, const profile::SiteProfile& profile);

/// The #SBATCH flags, in the order they appear in the script, each with its reason (may be empty).
std::vector<std::pair<std::string, std::string>> batch_directives(
    const BatchRequest& request, const profile::SiteProfile& profile);

/// Renders `template_text` (named `template_name` in errors). Throws ConfigError for a template
/// that does not parse.
std::string render_batch_script(const BatchRequest& request, const profile::SiteProfile& profile,
                                const std::string& template_text,
                                const std::string& template_name);

}  // namespace hvd::launcher::slurm
