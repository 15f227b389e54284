// SPDX-License-Identifier: Apache-2.0
#include "transport/tcp/listen_address.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <set>

#include "hvd/env_keys.h"
#include "hvd/error.h"
#include "hvd/str_cat.h"
#include "net/socket.h"

namespace hvd::backends::ring {
namespace {

// A few hosts are enough to find a route; a job of thousands of hosts must not resolve them all.
constexpr size_t kMostHostsTried = 8;
constexpr uint16_t kAnyPort = 9;  // connect() on UDP needs a port; nothing is ever sent

std::string numeric(const sockaddr* addr) {
  char text[INET6_ADDRSTRLEN] = {};
  const void* raw =
      addr->sa_family == AF_INET
          ? static_cast<const void*>(&reinterpret_cast<const sockaddr_in*>(addr)->sin_addr)
          : static_cast<const void*>(&reinterpret_cast<const sockaddr_in6*>(addr)->sin6_addr);
  if (inet_ntop(addr->sa_family, raw, text, sizeof(text)) == nullptr) return {};
  return text;
}

bool is_loopback(const std::string& address) {
  return address.rfind("127.", 0) == 0 || address == "::1";
}

std::vector<std::string> resolve_host(const std::string& host) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_DGRAM;
  addrinfo* result = nullptr;
  std::vector<std::string> addresses;
  if (getaddrinfo(host.c_str(), nullptr, &hints, &result) != 0) return addresses;
  for (const addrinfo* a = result; a != nullptr; a = a->ai_next) {
    if (a->ai_family == AF_INET || a->ai_family == AF_INET6)
      addresses.push_back(numeric(a->ai_addr));
  }
  freeaddrinfo(result);
  return addresses;
}

std::string route_from_address(const std::string& address) {
  sockaddr_storage to{};
  socklen_t len = 0;
  auto* v4 = reinterpret_cast<sockaddr_in*>(&to);
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&to);
  if (inet_pton(AF_INET, address.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(kAnyPort);
    len = sizeof(sockaddr_in);
  } else if (inet_pton(AF_INET6, address.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(kAnyPort);
    len = sizeof(sockaddr_in6);
  } else {
    return {};
  }
  const net::Fd fd(socket(to.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  if (!fd.valid() || connect(fd.get(), reinterpret_cast<sockaddr*>(&to), len) != 0) return {};
  sockaddr_storage local{};
  socklen_t local_len = sizeof(local);
  if (getsockname(fd.get(), reinterpret_cast<sockaddr*>(&local), &local_len) != 0) return {};
  return numeric(reinterpret_cast<sockaddr*>(&local));
}

}  // namespace

AddressLookup system_address_lookup() { return {resolve_host, route_from_address}; }

std::string route_listen_address(const std::string& self, const std::vector<std::string>& hosts,
                                 const AddressLookup& lookup) {
  std::vector<std::string> others;
  std::set<std::string> seen{self};
  for (const std::string& host : hosts) {
    if (seen.insert(host).second) others.push_back(host);
    if (others.size() == kMostHostsTried) break;
  }
  if (others.empty()) {
    throw ConfigError(
        str_cat("ring tcp: no host of the job but this one (", self, ") to find a route to"));
  }
  std::string tried;
  for (const std::string& host : others) {
    const std::vector<std::string> addresses = lookup.resolve(host);
    std::string why = "does not resolve";
    for (const std::string& address : addresses) {
      const std::string local = lookup.route_from(address);
      // A route from loopback means the name resolved to this host (a shared /etc/hosts
      // entry, an alias): the others could not use it.
      if (!local.empty() && !is_loopback(local)) return local;
      why = str_cat("resolves to ", address, local.empty() ? " with no route" : ", this host");
    }
    tried += str_cat(tried.empty() ? "" : ", ", host, " (", why, ")");
  }
  throw BootstrapError(str_cat("ring tcp: found no address of this host (", self,
                               ") that the other hosts of the job reach: tried ", tried, "; set ",
                               env::kRingAddress,
                               " to this host's address on the network the ranks share"));
}

}  // namespace hvd::backends::ring
