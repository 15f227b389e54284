// SPDX-License-Identifier: Apache-2.0
#include "bootstrap/pmix_bootstrap.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bootstrap/exchange_store.h"
#include "bootstrap/launch_probe.h"
#include "bootstrap/pmix_exchange.h"
#include "bootstrap/topology.h"
#include "hvd/str_cat.h"

namespace hvd::bootstrap {
namespace {

// Whether PMIx's node ids can number the hosts: every rank has one, below the number of hosts,
// and ranks share an id exactly when they share a host. (Slurm numbers nodes within the
// allocation, which may be larger than the job.)
bool node_ids_fit(const std::vector<std::string>& hosts, const std::vector<std::string>& ids,
                  int num_hosts) {
  std::map<std::string, std::string> id_of_host, host_of_id;
  for (size_t r = 0; r < hosts.size(); ++r) {
    const std::string& id = ids[r];
    if (id.empty() || id.size() > 9 || id.find_first_not_of("0123456789") != std::string::npos ||
        std::stoi(id) >= num_hosts) {
      return false;
    }
    if (id_of_host.emplace(hosts[r], id).first->second != id) return false;
    if (host_of_id.emplace(id, hosts[r]).first->second != hosts[r]) return false;
  }
  return true;
}

}  // namespace

Probe PmixBootstrap::probe(const EnvMap& env) const { return probe_pmix(env, mpi_built_in_); }

Bootstrapped PmixBootstrap::start(const EnvMap& /*env*/, const BootstrapOptions& options) {
  auto exchange = std::make_unique<PmixExchange>();
  const PmixExchange& pmix = *exchange;
  WorldInfo w;
  w.method = "pmix";
  w.rank = pmix.rank();
  w.size = pmix.size();
  w.hostname = pmix.get_string(PMIX_HOSTNAME).value_or(std::string());
  if (w.hostname.empty()) w.hostname = this_host_name();

  const auto local_rank = pmix.get_number(PMIX_LOCAL_RANK, /*job_level=*/false);
  const auto local_size = pmix.get_number(PMIX_LOCAL_SIZE, /*job_level=*/true);
  const bool has_local = local_rank && local_size && *local_rank < *local_size &&
                         *local_size <= static_cast<uint64_t>(w.size);
  if (has_local) {
    w.local_rank = static_cast<int>(*local_rank);
    w.local_size = static_cast<int>(*local_size);
  }
  const auto node_id = pmix.get_number(PMIX_NODEID, /*job_level=*/false);

  // Host names (with node ids) are gathered on every rank, so that every choice below is made
  // from the same data everywhere: one rank deciding alone to skip a collective would hang
  // the others.
  auto store = std::make_unique<ExchangeStore>(std::move(exchange));
  const std::string mine = str_cat(node_id ? std::to_string(*node_id) : "-", " ", w.hostname);
  const std::vector<std::string> gathered =
      gather_through_store(*store, w.rank, w.size, "pmix-hosts", mine, options.timeout);
  std::vector<std::string> hosts, ids;
  for (const std::string& entry : gathered) {
    const size_t space = entry.find(' ');
    ids.push_back(entry.substr(0, space));
    hosts.push_back(space == std::string::npos ? std::string() : entry.substr(space + 1));
  }
  const HostLayout layout = layout_from_hostnames(hosts, w.rank);
  if (!has_local) {
    w.local_rank = layout.local_rank;
    w.local_size = layout.local_size;
  }
  w.cross_size = layout.cross_size;
  w.cross_rank = node_ids_fit(hosts, ids, layout.cross_size)
                     ? std::stoi(ids[static_cast<size_t>(w.rank)])
                     : layout.cross_rank;
  w.hostnames = std::move(hosts);
  return {std::move(w), std::move(store)};
}

}  // namespace hvd::bootstrap
