// SPDX-License-Identifier: Apache-2.0
#pragma once
// ProcessSetTable: the process sets of one runtime (core/process_set.h). It holds two views
// of them, because two kinds of thread ask:
//   - the sets this rank is a member of, by id, with their negotiation and executors: only the
//     thread that holds the cycle turn (CycleTurns) uses these, so they take no lock;
//   - every set's ranks and this rank's place among them (member or not), which API threads
//     read on every enqueue; a mutex guards these.
// Adding and removing a set happen in a global cycle, on every rank alike (Runtime negotiates
// them); the checks here are the same everywhere, so all ranks fail alike or none does.

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "bootstrap/world_info.h"
#include "control/controller.h"
#include "core/process_set.h"
#include "hvd/status.h"
#include "timeline/timeline.h"

namespace hvd::core {

class ProcessSetTable {
 public:
  /// `global` is set 0 (all ranks). `factory` connects the sets added later; empty: add()
  /// fails. `options` is what each new set's controller starts from.
  ProcessSetTable(std::unique_ptr<ProcessSet> global, const bootstrap::WorldInfo& world,
                  control::ControllerOptions options, SetCommsFactory factory);
  /// Ends the sets newest first: an MPI sub-communicator goes before the communicator it
  /// came from. Idempotent; also run by the destructor.
  void clear();
  ~ProcessSetTable() { clear(); }
  ProcessSetTable(const ProcessSetTable&) = delete;
  ProcessSetTable& operator=(const ProcessSetTable&) = delete;

  /// Set 0. Lives as long as the table.
  ProcessSet& global() { return *global_; }
  /// The sets this rank is in, by id, 0 first. Cycle thread only.
  std::map<int, std::unique_ptr<ProcessSet>>& member_sets() { return sets_; }
  const std::map<int, std::unique_ptr<ProcessSet>>& member_sets() const { return sets_; }

  /// Creates the set of `requested` (sorted global ranks, as negotiated) and returns its id;
  /// connects it when this rank is a member, recording into `timeline` (may be null). Throws
  /// UsageError for ranks outside the world, repeated ranks, no ranks, or ranks that already
  /// form a set; what the factory throws passes through. Cycle thread only.
  int add(const std::vector<int64_t>& requested, TimelineWriter* timeline);
  /// Takes set `requested[0]` out of the rank table, so that no new request can name it, and
  /// returns its id; throws UsageError for set 0 or no such set. Its communication stays
  /// until erase_member_set(): the caller first fails what is queued for it. Cycle thread only.
  int forget(const std::vector<int64_t>& requested);
  /// Ends this rank's part of set `id` (nothing when not a member). Cycle thread only.
  void erase_member_set(int id) { sets_.erase(id); }

  /// This rank's place in `process_set` into *set_rank, or why it cannot use the set.
  /// Thread-safe.
  Status set_rank_of(int process_set, int* set_rank) const;
  /// The global ranks of set `id`, in set rank order; nothing when there is no such set.
  std::optional<std::vector<int>> ranks(int id) const;
  /// This rank's place in set `id`; -1 when it is not a member or there is no such set.
  int rank(int id) const;
  /// Every set's id, 0 first.
  std::vector<int> ids() const;
  /// "[1, 3]": set `id`'s global ranks, for messages; "?" when there is no such set.
  std::string label(int id) const;

 private:
  // Checks the negotiated ranks (in range, distinct, not forming a set yet) and converts them.
  std::vector<int> checked_ranks(const std::vector<int64_t>& requested) const;
  // Connects set `id` of `ranks` on a member; nothing on the others.
  void connect(int id, const std::vector<int>& ranks, TimelineWriter* timeline);

  // Every set's ranks (this rank in it or not), for the API threads.
  struct SetRanks {
    std::vector<int> ranks;  // global ranks, in set order
    int mine = -1;           // this rank's place in them; -1 when not a member
  };

  const bootstrap::WorldInfo& world_;
  control::ControllerOptions options_;
  SetCommsFactory factory_;
  // The sets this rank is in, by id; 0 (all ranks) always.
  std::map<int, std::unique_ptr<ProcessSet>> sets_;
  ProcessSet* global_;   // sets_[0]
  int next_set_id_ = 1;  // the same on every rank: sets change in the same global cycle
  mutable std::mutex table_mutex_;
  std::map<int, SetRanks> table_;
};

}  // namespace hvd::core
