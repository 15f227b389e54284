// SPDX-License-Identifier: Apache-2.0
#pragma once
// Which address of this host a TCP ring transport listens on and advertises, when the
// rendezvous store does not tell (the PMIx and MPI bootstraps; hvdrun's store gives the local
// end of the rank's connection to it). The host name is no answer: Debian maps it to 127.0.1.1
// in /etc/hosts, so other hosts could not connect, and listening on every interface instead
// (0.0.0.0) would put the port on networks the job does not use. The answer is the local
// address of the route to another host of the job, as the kernel would pick it for a
// connection there: resolve that host, connect a UDP socket to it (nothing is sent), and read
// getsockname(). HVD_RING_ADDRESS overrides all of this.

#include <functional>
#include <string>
#include <vector>

namespace hvd::backends::ring {

/// The two system calls behind the choice, injectable for tests.
struct AddressLookup {
  /// The numeric addresses `host` resolves to (any family); none when it does not resolve.
  std::function<std::vector<std::string>(const std::string& host)> resolve;
  /// This host's address on the route to the numeric `address`; "" when there is no route.
  std::function<std::string(const std::string& address)> route_from;
};

/// getaddrinfo() and a connected UDP socket.
AddressLookup system_address_lookup();

/// The address to listen on and advertise: the local end of the route to the first host in
/// `hosts` (every rank's host name; this host's own entries, `self`, are skipped) that resolves
/// and has a route from an address other than loopback. Throws BootstrapError naming the hosts
/// tried and HVD_RING_ADDRESS when none does; ConfigError when `hosts` holds no other host (the
/// caller should have used loopback).
std::string route_listen_address(const std::string& self, const std::vector<std::string>& hosts,
                                 const AddressLookup& lookup = system_address_lookup());

}  // namespace hvd::backends::ring
