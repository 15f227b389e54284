// SPDX-License-Identifier: Apache-2.0
#pragma once
// The address hvdrun's rendezvous store binds to inside an allocation.
//
// Never 0.0.0.0: the store would then also listen on interfaces the step does not use (a
// login or management network, docker bridges), in reach of more hosts than need it. It binds
// one IPv4 address of this host that the step's nodes can reach, and the ranks get that same
// address in HVD_STORE_ADDR, so what they connect to is exactly what is bound.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "config/env_map.h"

namespace hvd::launcher::slurm {

/// The ways to find the address, injectable for tests.
struct AddressProbes {
  /// IPv4 addresses `name` resolves to (dotted), in resolver order.
  std::function<std::vector<std::string>(const std::string& name)> resolve;
  /// Whether `address` belongs to an interface of this host.
  std::function<bool(const std::string& address)> is_local;
  /// The source address of this host towards `host` (a route lookup, nothing sent).
  std::function<std::optional<std::string>(const std::string& host)> source_towards;
};

/// The real probes: getaddrinfo, getifaddrs, a connected UDP socket.
AddressProbes system_address_probes();

/// In order: an address that this host's own node address (`self_address`, what the other
/// nodes resolve) resolves to, when it is a non-loopback address of this host; else this
/// host's source address towards the first of `peer_addresses` (the other step nodes'
/// addresses) that has a route other than loopback; else, when there are no other nodes or
/// they are reached over loopback (they run on this host), 127.0.0.1. Throws LaunchError when
/// other nodes exist but no address of this host reaches them.
std::string store_bind_address(const std::string& self_address,
                               const std::vector<std::string>& peer_addresses,
                               const AddressProbes& probes);
/// The same, with the peers' addresses looked up only when this host's own address does not do.
std::string store_bind_address_lazily(const std::string& self_address,
                                      const std::function<std::vector<std::string>()>& peers,
                                      const AddressProbes& probes);

}  // namespace hvd::launcher::slurm
