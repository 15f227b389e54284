// SPDX-License-Identifier: Apache-2.0
#pragma once
// MessageTable: the coordinator's view of negotiation. Requests arrive from every rank; once
// all ranks have asked for a name, take_response() turns their requests into one Response, or
// into an error Response when the ranks disagree (dtype, shape, op, root, ...). The error names
// the tensor, what differs and which ranks differ from rank 0, and fails only that tensor.

#include <map>
#include <string>
#include <vector>

#include "control/message.h"

namespace hvd::control {

class MessageTable {
 public:
  explicit MessageTable(int size);

  /// Records `request`; returns true when every rank has now asked for its name.
  /// A second request for the same pending name from the same rank is kept as a conflict and
  /// reported by take_response().
  bool add(const Request& request);

  /// The response for a complete name, which is then forgotten. Call only after add() said the
  /// name is complete.
  Response take_response(const std::string& name);

  /// Names some but not all ranks have asked for, with the ranks that have.
  std::map<std::string, std::vector<int>> pending() const;

  /// hvd.join(): from now on `rank` counts as present for every name it has not asked for
  /// (control/join_rules.h). Joining twice before the join completes changes nothing.
  void join(int rank);
  /// Names that the joins made complete, in name order; call after each batch of add()/join().
  std::vector<std::string> completed_by_joins() const;
  bool all_joined() const { return joined_count_ == size_; }
  /// The rank whose join() came last; -1 when none has joined.
  int last_joined() const { return last_joined_; }
  /// Every rank active again (the join completed).
  void reset_joins();

 private:
  struct Entry {
    std::vector<Request> requests;  // indexed by rank; valid where present[rank]
    std::vector<bool> present;
    int count = 0;
    std::vector<int> duplicates;  // ranks that asked twice
  };
  // Every rank asked for the name or has joined.
  bool complete(const Entry& e) const;

  int size_;
  std::map<std::string, Entry> table_;
  std::vector<bool> joined_;
  int joined_count_ = 0;
  int last_joined_ = -1;
};

/// Why `requests` (one per rank, in rank order) cannot run together; empty when they can.
std::string check_agreement(const std::vector<Request>& requests);

}  // namespace hvd::control
