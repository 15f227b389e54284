// SPDX-License-Identifier: Apache-2.0
#include "why/rank_dir.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>

#include "files/atomic_file.h"
#include "hvd/error.h"
#include "why/job_dir.h"

namespace hvd::launcher::why {
namespace {

constexpr const char* kPrefix = "rank-";
constexpr const char* kRankFile = "rank.json";
constexpr size_t kMaxRankFile = 4 << 10;

// A rank's folder name carries nothing that matters: rank.json says what it holds. The run id
// is hvdrun's (letters, digits, '-'), kept in the name only to help a reader of the folder.
std::string folder_pattern(const std::string& run_id, int rank) {
  return str_cat(jobs_folder(), "/", kPrefix, run_id.substr(0, 40), "-", rank, "-XXXXXX");
}

}  // namespace

std::string node_name(const std::map<std::string, std::string>& env) {
  const auto it = env.find("SLURMD_NODENAME");
  if (it != env.end() && !it->second.empty()) return it->second;
  char host[256] = {};
  if (gethostname(host, sizeof(host) - 1) != 0) return "localhost";
  return host;
}

RankDir RankDir::create(const std::string& run_id, int rank, const std::string& node) {
  std::string pattern = folder_pattern(run_id, rank);
  if (mkdtemp(pattern.data()) == nullptr) {
    throw ConfigError(str_cat(pattern, ": cannot create the rank's folder: ", std::strerror(errno)));
  }
  return RankDir(pattern, run_id, rank, node);
}

RankDir::RankDir(RankDir&& other) noexcept
    : path_(std::move(other.path_)),
      run_id_(std::move(other.run_id_)),
      rank_(other.rank_),
      node_(std::move(other.node_)) {
  other.path_.clear();
}

void RankDir::remove() noexcept {
  if (path_.empty()) return;
  remove_private_folder(path_);
  path_.clear();
}

void RankDir::record(pid_t rank_pid) const noexcept {
  try {
    const nlohmann::json j{{"run_id", run_id_},
                           {"rank", rank_},
                           {"node", node_},
                           {"pid", rank_pid},
                           {"start", process_start_ticks(rank_pid)}};
    files::write_file_atomically(path_ + "/" + kRankFile, j.dump(), 0600);
  } catch (const std::exception&) {
    // Not found by `hvdrun why-node`: the verdict shows the rank as silent.
  }
}

std::vector<LocalRank> local_ranks(const std::string& run_id, const std::string& node) {
  std::vector<LocalRank> found;
  for_each_recorded_folder(
      kPrefix, kRankFile, kMaxRankFile,
      [&](const std::string& folder, const nlohmann::json& j, bool alive) {
        // Another node's folder (nodes that share it) names a process of another kernel.
        if (j.at("node").get<std::string>() != node) return;
        if (!alive) {
          // A rank of any run on this node that ended while its exec-rank could not remove
          // the folder (killed with SIGKILL).
          remove_private_folder(folder);
          return;
        }
        if (j.at("run_id").get<std::string>() != run_id) return;
        found.push_back(LocalRank{j.at("rank").get<int>(), j.at("pid").get<pid_t>(), folder});
      });
  std::sort(found.begin(), found.end(),
            [](const LocalRank& a, const LocalRank& b) { return a.rank < b.rank; });
  return found;
}

}  // namespace hvd::launcher::why
