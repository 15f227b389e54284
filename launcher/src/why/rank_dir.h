// SPDX-License-Identifier: Apache-2.0
#pragma once
// RankDir: under Slurm, each rank's private folder on its own node, made by `hvdrun exec-rank`
// in the user's folder of running jobs (why/job_dir.h: $XDG_RUNTIME_DIR/hvdrun or
// /tmp/hvdrun-<uid>, 0700). hvdrun's own job folder is on hvdrun's node only, so a rank on
// another node gets this one as HVD_WHY_DIR for its Python stack dump. Its rank.json names the
// run, the rank, the node and the rank's process (pid and start time), which is how
// `hvdrun why-node` (why/node_agent.h) finds the ranks of a run on its node.

#include <sys/types.h>

#include <map>
#include <string>
#include <vector>

namespace hvd::launcher::why {

/// This node's name as a Slurm task sees it (SLURMD_NODENAME), else the host name: the same
/// for exec-rank and `hvdrun why-node` on one node, different between nodes that share a
/// folder (two slurmd on one host, as in the test cluster).
std::string node_name(const std::map<std::string, std::string>& env);

class RankDir {
 public:
  /// Makes the folder (mkdtemp, 0700). Throws ConfigError as jobs_folder() does.
  static RankDir create(const std::string& run_id, int rank, const std::string& node);
  RankDir(RankDir&& other) noexcept;
  RankDir& operator=(RankDir&&) = delete;
  RankDir(const RankDir&) = delete;
  /// Removes the folder and what the rank wrote in it (remove()).
  ~RankDir() { remove(); }
  /// Removes the folder now; idempotent. exec-rank calls it after its rank ended, as it ends
  /// itself without returning (exec/rank_parent.h).
  void remove() noexcept;
  const std::string& path() const { return path_; }
  /// Writes rank.json for the rank's process. Never throws: a rank that cannot be found costs
  /// `hvdrun why` its answer, not the job.
  void record(pid_t rank_pid) const noexcept;

 private:
  RankDir(std::string path, std::string run_id, int rank, std::string node)
      : path_(std::move(path)), run_id_(std::move(run_id)), rank_(rank), node_(std::move(node)) {}
  std::string path_;
  std::string run_id_;
  int rank_ = -1;
  std::string node_;
};

/// A rank of a run found on this node.
struct LocalRank {
  int rank = -1;
  pid_t pid = 0;
  std::string folder;  // its RankDir (its HVD_WHY_DIR)
};

/// The ranks of `run_id` on `node` whose process still runs (same pid and start time), by
/// rank. Folders of other runs, other nodes (nodes that share the folder) and of ended ranks
/// are skipped; so is anything that is not a RankDir. The folders on this node of ranks (of
/// any run) that ended are removed: their exec-rank was killed before it could.
std::vector<LocalRank> local_ranks(const std::string& run_id, const std::string& node);

}  // namespace hvd::launcher::why
