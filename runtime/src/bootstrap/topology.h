// SPDX-License-Identifier: Apache-2.0
#pragma once
// Topology: local and cross ranks from host names, for methods whose launcher does not give
// them, and the checks every WorldInfo passes before the bootstrap returns it.
//
// Definitions (Horovod's, for hosts with the same number of ranks): ranks on the same host are
// "local" to each other and numbered by rank; hosts are numbered by their lowest rank, and a
// rank's cross_rank is its host's number, cross_size the number of hosts.

#include <chrono>
#include <string>
#include <vector>

#include "bootstrap/kv_store.h"
#include "bootstrap/world_info.h"

namespace hvd::bootstrap {

struct HostLayout {
  int local_rank = 0;
  int local_size = 1;
  int cross_rank = 0;
  int cross_size = 1;
};

/// The layout of `rank`, given every rank's host name indexed by rank. Pure.
HostLayout layout_from_hostnames(const std::vector<std::string>& hostnames, int rank);

/// Collective over `store`: every rank passes `mine` and gets every rank's, indexed by rank.
/// Every rank must call it with the same `tag`. Two barriers; rank 0 reads the N values and
/// republishes them as one, so the store sees O(N) operations rather than O(N^2).
std::vector<std::string> gather_through_store(KvStore& store, int rank, int size,
                                              const std::string& tag, const std::string& mine,
                                              std::chrono::milliseconds timeout);

/// Gathers host names through `store` and sets the local_* fields (when `local`) and the
/// cross_* fields (when `cross`) of `world` from them. Collective.
void fill_from_hostnames(WorldInfo& world, KvStore& store, bool local, bool cross,
                         std::chrono::milliseconds timeout);

/// Throws BootstrapError naming the method and the field when `world` contradicts itself
/// (rank >= size, local_size > size, ...).
void check_world(const WorldInfo& world);

/// gethostname(); BootstrapError when it fails.
std::string this_host_name();

}  // namespace hvd::bootstrap
