// SPDX-License-Identifier: Apache-2.0
#pragma once
// SetRendezvousStore: the KvStore through which the members of a new process set connect their
// own transports, made of rounds over the run's control channel (which every rank already has,
// so no store server is needed after init).
//
// Creating a set is collective over ALL ranks (as in Horovod), but only its members build
// transports, and a transport's setup calls barrier() a number of times the other ranks do not
// know. So every rank takes part in rounds: one gather to rank 0 and one broadcast of every
// rank's message (a done flag, the barrier's name, the keys it set since the last round).
//   member:      barrier() = one round (done = 0); after its transports are built, finish().
//   non-member:  finish() at once.
//   finish():    rounds with done = 1 until a round in which every rank said done. A member
//                whose setup failed passes its error to finish() instead; every rank then
//                gets the first rank's error back, so that all fail the same way.
// Every rank sees the same rounds, so all leave finish() together. Members that name different
// barriers in one round get BootstrapError naming both. get() is a local lookup of what this
// rank set or learnt in a round (ExchangeStore's semantics, see kv_store.h).

#include <chrono>
#include <map>
#include <string>

#include "bootstrap/kv_store.h"
#include "control/channel.h"

namespace hvd::core {

class SetRendezvousStore final : public bootstrap::KvStore {
 public:
  /// `all`: the global control channel; used only from the background loop, as everywhere.
  explicit SetRendezvousStore(control::Channel& all) : all_(all) {}

  void set(const std::string& key, const std::string& value) override;
  /// Throws BootstrapError for a key nobody set before the last barrier.
  std::string get(const std::string& key, std::chrono::milliseconds timeout) override;
  /// One round (see above); the timeout is the channel's.
  void barrier(const std::string& name, std::chrono::milliseconds timeout) override;
  /// Rounds until every rank has called finish(); see above. `error`: why this rank's setup
  /// failed, empty if it did not. Returns the first failed rank's error ("rank R: ..."), or
  /// empty when every rank succeeded.
  std::string finish(const std::string& error = {});

 private:
  // One round; returns whether every rank said done. `status`: "0" working, "1" done, else
  // "!" and an error.
  bool round(const std::string& status, const std::string& barrier);

  std::string first_error_;

  control::Channel& all_;
  std::map<std::string, std::string> known_;
  std::map<std::string, std::string> unshared_;
};

}  // namespace hvd::core
