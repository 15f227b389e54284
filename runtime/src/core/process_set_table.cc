// SPDX-License-Identifier: Apache-2.0
#include "core/process_set_table.h"

#include <algorithm>
#include <iostream>
#include <iterator>
#include <utility>

#include "backends/host_memory.h"
#include "hvd/error.h"
#include "hvd/str_cat.h"

namespace hvd::core {
namespace {

std::vector<int> all_ranks(int size) {
  std::vector<int> ranks(static_cast<size_t>(size));
  for (int r = 0; r < size; ++r) ranks[static_cast<size_t>(r)] = r;
  return ranks;
}

std::string ranks_text(const std::vector<int64_t>& ranks) {
  std::string out = "[";
  for (size_t i = 0; i < ranks.size(); ++i) out += (i ? ", " : "") + std::to_string(ranks[i]);
  return out + "]";
}

// Stall warnings of set `id` name ranks by their place in the set, like its errors: say so.
control::ControllerOptions set_options(control::ControllerOptions options, int id,
                                       const std::vector<int>& ranks) {
  const std::string prefix =
      str_cat("process set ", id, " (ranks ", ranks_text({ranks.begin(), ranks.end()}),
              "; ranks below are positions in it): ");
  options.warn = [prefix, warn = options.warn](const std::string& line) {
    if (warn) {
      warn(prefix + line);
    } else {
      std::cerr << prefix << line << std::endl;
    }
  };
  return options;
}

}  // namespace

ProcessSetTable::ProcessSetTable(std::unique_ptr<ProcessSet> global,
                                 const bootstrap::WorldInfo& world,
                                 control::ControllerOptions options, SetCommsFactory factory)
    : world_(world),
      options_(std::move(options)),
      factory_(std::move(factory)),
      global_(global.get()) {
  sets_.emplace(0, std::move(global));
  table_[0] = SetRanks{all_ranks(world_.size), world_.rank};
}

void ProcessSetTable::clear() {
  while (!sets_.empty()) sets_.erase(std::prev(sets_.end()));
}

Status ProcessSetTable::set_rank_of(int process_set, int* set_rank) const {
  // Set 0 always exists and numbers ranks as the world does: no lookup on the common path.
  if (process_set == 0) {
    *set_rank = world_.rank;
    return Status();
  }
  std::lock_guard<std::mutex> lock(table_mutex_);
  const auto it = table_.find(process_set);
  if (it == table_.end()) {
    return Status::error(ErrorCode::kUsage, str_cat("process set ", process_set,
                                                    " does not exist (never added, or removed)"));
  }
  *set_rank = it->second.mine;
  if (*set_rank < 0) {
    return Status::error(ErrorCode::kUsage, str_cat("rank ", world_.rank, " is not in process set ",
                                                    process_set, "; only its ranks may use it"));
  }
  return Status();
}

std::string ProcessSetTable::label(int id) const {
  const std::optional<std::vector<int>> set_ranks = ranks(id);
  return set_ranks ? ranks_text({set_ranks->begin(), set_ranks->end()}) : "?";
}

std::optional<std::vector<int>> ProcessSetTable::ranks(int id) const {
  std::lock_guard<std::mutex> lock(table_mutex_);
  const auto it = table_.find(id);
  if (it == table_.end()) return std::nullopt;
  return it->second.ranks;
}

int ProcessSetTable::rank(int id) const {
  std::lock_guard<std::mutex> lock(table_mutex_);
  const auto it = table_.find(id);
  return it == table_.end() ? -1 : it->second.mine;
}

std::vector<int> ProcessSetTable::ids() const {
  std::lock_guard<std::mutex> lock(table_mutex_);
  std::vector<int> ids;
  for (const auto& [id, set_ranks] : table_) ids.push_back(id);
  return ids;
}

std::vector<int> ProcessSetTable::checked_ranks(const std::vector<int64_t>& requested) const {
  // The same checks on every rank, from the same negotiated ranks: all fail alike or none.
  if (requested.empty()) throw UsageError("add_process_set: a process set needs at least one rank");
  std::vector<int> ranks;
  for (size_t i = 0; i < requested.size(); ++i) {
    const int64_t r = requested[i];
    if (r < 0 || r >= world_.size) {
      throw UsageError(str_cat("add_process_set ", ranks_text(requested), ": rank ", r,
                               " is outside 0..", world_.size - 1));
    }
    if (i > 0 && requested[i - 1] == r) {
      throw UsageError(
          str_cat("add_process_set ", ranks_text(requested), ": rank ", r, " is given twice"));
    }
    ranks.push_back(static_cast<int>(r));
  }
  std::lock_guard<std::mutex> lock(table_mutex_);
  for (const auto& [id, theirs] : table_) {
    if (theirs.ranks == ranks) {
      throw UsageError(str_cat("add_process_set ", ranks_text(requested),
                               ": these ranks already form process set ", id));
    }
  }
  return ranks;
}

int ProcessSetTable::add(const std::vector<int64_t>& requested, TimelineWriter* timeline) {
  const std::vector<int> ranks = checked_ranks(requested);
  if (!factory_) {
    throw UsageError(
        "add_process_set: this runtime was built without a way to connect process "
        "sets");
  }
  const int id = next_set_id_++;
  connect(id, ranks, timeline);
  const auto mine = std::find(ranks.begin(), ranks.end(), world_.rank);
  std::lock_guard<std::mutex> lock(table_mutex_);
  table_[id] = SetRanks{ranks, mine == ranks.end() ? -1 : static_cast<int>(mine - ranks.begin())};
  return id;
}

void ProcessSetTable::connect(int id, const std::vector<int>& ranks, TimelineWriter* timeline) {
  std::optional<SetComms> comms =
      factory_(id, ranks, *global_->channel, global_->lanes.host_backend());
  if (!comms) return;
  const bootstrap::WorldInfo w = comms->world;
  auto set = std::make_unique<ProcessSet>(
      id, w, std::move(comms->channel),
      backends::Lane{std::move(comms->backend), std::make_unique<backends::HostMemory>()},
      GpuLaneFactory{}, set_options(options_, id, ranks));
  // The GPU lane's factory sends NCCL's id over the set's own channel, which the set owns.
  if (comms->gpu) set->lanes.set_gpu_factory(comms->gpu(*set->channel, w));
  set->executor.set_timeline(timeline);
  sets_.emplace(id, std::move(set));
}

int ProcessSetTable::forget(const std::vector<int64_t>& requested) {
  const int64_t id = requested.empty() ? -1 : requested[0];
  if (id == 0) throw UsageError("remove_process_set: the global process set (0) cannot be removed");
  std::lock_guard<std::mutex> lock(table_mutex_);
  if (requested.size() != 1 || table_.erase(static_cast<int>(id)) == 0) {
    throw UsageError(str_cat("remove_process_set: there is no process set ", id));
  }
  return static_cast<int>(id);
}

}  // namespace hvd::core
