// SPDX-License-Identifier: Apache-2.0
#include "slurm/store_address.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <memory>

#include "hvd/error.h"
#include "hvd/str_cat.h"
#include "slurm/route_interface.h"

namespace hvd::launcher::slurm {
namespace {

std::vector<std::string> resolve_ipv4(const std::string& name) {
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(name.c_str(), nullptr, &hints, &found) != 0 || found == nullptr) return {};
  const std::unique_ptr<addrinfo, decltype(&freeaddrinfo)> owner(found, freeaddrinfo);
  std::vector<std::string> out;
  for (const addrinfo* a = found; a != nullptr; a = a->ai_next) {
    char text[INET_ADDRSTRLEN] = {};
    const auto* in = reinterpret_cast<const sockaddr_in*>(a->ai_addr);
    if (inet_ntop(AF_INET, &in->sin_addr, text, sizeof(text)) != nullptr) out.emplace_back(text);
  }
  return out;
}

bool is_local_ipv4(const std::string& address) {
  in_addr wanted{};
  if (inet_pton(AF_INET, address.c_str(), &wanted) != 1) return false;
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return false;
  const std::unique_ptr<ifaddrs, decltype(&freeifaddrs)> owner(list, freeifaddrs);
  for (const ifaddrs* ifa = list; ifa != nullptr; ifa = ifa->ifa_next) {
    if (ifa->ifa_addr == nullptr || ifa->ifa_addr->sa_family != AF_INET) continue;
    if (reinterpret_cast<const sockaddr_in*>(ifa->ifa_addr)->sin_addr.s_addr == wanted.s_addr) {
      return true;
    }
  }
  return false;
}

bool is_loopback(const std::string& address) { return address.rfind("127.", 0) == 0; }

}  // namespace

AddressProbes system_address_probes() {
  return {resolve_ipv4, is_local_ipv4, source_address_towards};
}

std::string store_bind_address(const std::string& self_address,
                               const std::vector<std::string>& peer_addresses,
                               const AddressProbes& probes) {
  return store_bind_address_lazily(self_address, [&] { return peer_addresses; }, probes);
}

std::string store_bind_address_lazily(const std::string& self_address,
                                      const std::function<std::vector<std::string>()>& peers,
                                      const AddressProbes& probes) {
  for (const std::string& a : probes.resolve(self_address)) {
    if (!is_loopback(a) && probes.is_local(a)) return a;
  }
  // Only now: looking the peers up can cost an scontrol run each.
  const std::vector<std::string> peer_addresses = peers();
  // A route over loopback means the peer is this very host (a NodeAddr of 127.0.0.1, as on
  // single-machine test clusters): loopback reaches it.
  bool peers_are_local = false;
  for (const std::string& peer : peer_addresses) {
    if (std::optional<std::string> source = probes.source_towards(peer)) {
      if (!is_loopback(*source)) return *source;
      peers_are_local = true;
    }
  }
  if (peer_addresses.empty() || peers_are_local) return "127.0.0.1";
  throw LaunchError(str_cat("no address of this host (", self_address,
                            ") reaches the other nodes of the step (first: ", peer_addresses[0],
                            "); the rendezvous store cannot listen for them. Check that the "
                            "node names resolve here (getent hosts ",
                            peer_addresses[0], ")"));
}

}  // namespace hvd::launcher::slurm
