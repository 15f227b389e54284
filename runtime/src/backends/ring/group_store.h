// SPDX-License-Identifier: Apache-2.0
#pragma once
// GroupStore: lets a subset of the ranks (the ranks of one host, or the ranks with the same
// local rank on every host) set up a transport of their own over the run's KvStore.
//
// Keys are prefixed with the group's label, so groups that number their members 0..n-1 the
// same way never read each other's addresses. barrier() is passed through unchanged to the
// whole run: a store's barrier counts every rank of the run, and the ExchangeStores of PMIx
// and MPI only move values at such a run-wide barrier. That is correct as long as EVERY rank
// of the run builds its group transport at the same step (with the same scope), which the
// hierarchical backend guarantees by building all groups' transports in one collective step.

#include <chrono>
#include <string>
#include <utility>

#include "bootstrap/kv_store.h"

namespace hvd::backends::ring {

class GroupStore final : public bootstrap::KvStore {
 public:
  GroupStore(bootstrap::KvStore& run, std::string label)
      : run_(run), prefix_("group/" + std::move(label) + "/") {}

  void set(const std::string& key, const std::string& value) override {
    run_.set(prefix_ + key, value);
  }
  std::string get(const std::string& key, std::chrono::milliseconds timeout) override {
    return run_.get(prefix_ + key, timeout);
  }
  void barrier(const std::string& name, std::chrono::milliseconds timeout) override {
    run_.barrier(name, timeout);
  }
  std::string reachable_address() const override { return run_.reachable_address(); }

 private:
  bootstrap::KvStore& run_;
  std::string prefix_;
};

}  // namespace hvd::backends::ring
