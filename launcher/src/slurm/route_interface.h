// SPDX-License-Identifier: Apache-2.0
#pragma once
// The network interface this node uses to reach a host, for GLOO_SOCKET_IFNAME.
//
// torch's gloo backend binds to the address its host name resolves to, unless
// GLOO_SOCKET_IFNAME names an interface. Where the name does not resolve (the test cluster's
// node1/node2) it falls back to loopback with a warning, and where it resolves to 127.0.1.1
// (Debian's /etc/hosts) or to a NIC the other nodes cannot reach, ranks on other nodes cannot
// connect. The interface with the route to MASTER_ADDR is one every node can use: it is how
// this node reaches rank 0, and rank 0's node picks the interface that holds that address.

#include <optional>
#include <string>

namespace hvd::launcher::slurm {

/// The name of the interface whose IPv4 address the kernel would use as the source for a
/// connection to `host` (a UDP connect: no packet is sent). Nothing when `host` does not
/// resolve or no interface holds that address.
std::optional<std::string> interface_towards(const std::string& host);

/// The IPv4 address (dotted) that the kernel would use as the source for a connection to
/// `host`; nothing when `host` does not resolve or has no route.
std::optional<std::string> source_address_towards(const std::string& host);

}  // namespace hvd::launcher::slurm
