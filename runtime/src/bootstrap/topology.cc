// SPDX-License-Identifier: Apache-2.0
#include "bootstrap/topology.h"

#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <map>

#include "bootstrap/string_pack.h"
#include "hvd/error.h"
#include "hvd/str_cat.h"

namespace hvd::bootstrap {

HostLayout layout_from_hostnames(const std::vector<std::string>& hostnames, int rank) {
  HVD_CHECK(rank >= 0 && static_cast<size_t>(rank) < hostnames.size(), "rank ", rank, " outside ",
            hostnames.size(), " host names");
  const std::string& mine = hostnames[static_cast<size_t>(rank)];
  std::map<std::string, int> host_number;  // in order of each host's lowest rank
  HostLayout layout;
  layout.local_rank = 0;
  layout.local_size = 0;
  for (size_t r = 0; r < hostnames.size(); ++r) {
    const int number = static_cast<int>(host_number.size());
    host_number.emplace(hostnames[r], number);
    if (hostnames[r] != mine) continue;
    ++layout.local_size;
    if (static_cast<int>(r) < rank) ++layout.local_rank;
  }
  layout.cross_rank = host_number.at(mine);
  layout.cross_size = static_cast<int>(host_number.size());
  return layout;
}

std::vector<std::string> gather_through_store(KvStore& store, int rank, int size,
                                              const std::string& tag, const std::string& mine,
                                              std::chrono::milliseconds timeout) {
  const std::string base = "hvd.gather/" + tag;
  store.set(str_cat(base, "/", rank), mine);
  store.barrier(base + "/in", timeout);
  if (rank == 0) {
    std::vector<std::string> all;
    all.reserve(static_cast<size_t>(size));
    for (int r = 0; r < size; ++r) all.push_back(store.get(str_cat(base, "/", r), timeout));
    store.set(base + "/all", pack_strings(all));
  }
  store.barrier(base + "/out", timeout);
  std::vector<std::string> all =
      unpack_strings(store.get(base + "/all", timeout), str_cat("gathered '", tag, "'"));
  if (static_cast<int>(all.size()) != size) {
    throw BootstrapError(str_cat("gathered '", tag, "': ", all.size(), " values for ", size,
                                 " ranks (do the ranks disagree on the world size?)"));
  }
  return all;
}

void fill_from_hostnames(WorldInfo& world, KvStore& store, bool local, bool cross,
                         std::chrono::milliseconds timeout) {
  if (!local && !cross) return;
  const std::vector<std::string> hosts =
      gather_through_store(store, world.rank, world.size, "hostnames", world.hostname, timeout);
  const HostLayout layout = layout_from_hostnames(hosts, world.rank);
  if (local) {
    world.local_rank = layout.local_rank;
    world.local_size = layout.local_size;
  }
  if (cross) {
    world.cross_rank = layout.cross_rank;
    world.cross_size = layout.cross_size;
  }
  world.hostnames = hosts;
}

void check_world(const WorldInfo& w) {
  const auto fail = [&w](const std::string& what) {
    throw BootstrapError(str_cat("bootstrap method '", w.method, "' gave an inconsistent world (",
                                 what, "): rank ", w.rank, "/", w.size, ", local ", w.local_rank,
                                 "/", w.local_size, ", cross ", w.cross_rank, "/", w.cross_size));
  };
  if (w.size < 1) fail("size < 1");
  if (w.rank < 0 || w.rank >= w.size) fail("rank outside [0, size)");
  if (w.local_size < 1 || w.local_size > w.size) fail("local_size outside [1, size]");
  if (w.local_rank < 0 || w.local_rank >= w.local_size) fail("local_rank outside [0, local_size)");
  if (w.cross_size < 1 || w.cross_size > w.size) fail("cross_size outside [1, size]");
  if (w.cross_rank < 0 || w.cross_rank >= w.cross_size) fail("cross_rank outside [0, cross_size)");
}

std::string this_host_name() {
  char name[HOST_NAME_MAX + 1] = {};
  if (gethostname(name, sizeof(name) - 1) != 0) {
    throw BootstrapError(str_cat("gethostname failed: ", std::strerror(errno)));
  }
  return name;
}

}  // namespace hvd::bootstrap
