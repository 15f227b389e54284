// SPDX-License-Identifier: Apache-2.0
#include "slurm/route_interface.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <memory>

#include "net/socket.h"

namespace hvd::launcher::slurm {
namespace {

// The source address a UDP socket connected to `host` gets; nothing if `host` does not resolve.
std::optional<in_addr> source_address_for(const std::string& host) {
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_DGRAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(host.c_str(), "9", &hints, &found) != 0 || found == nullptr) return std::nullopt;
  const std::unique_ptr<addrinfo, decltype(&freeaddrinfo)> owner(found, freeaddrinfo);
  const net::Fd fd(socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  if (!fd.valid() || connect(fd.get(), found->ai_addr, found->ai_addrlen) != 0) return std::nullopt;
  sockaddr_in local{};
  socklen_t len = sizeof(local);
  if (getsockname(fd.get(), reinterpret_cast<sockaddr*>(&local), &len) != 0) return std::nullopt;
  return local.sin_addr;
}

}  // namespace

std::optional<std::string> interface_towards(const std::string& host) {
  const std::optional<in_addr> source = source_address_for(host);
  ifaddrs* list = nullptr;
  if (!source || getifaddrs(&list) != 0) return std::nullopt;
  const std::unique_ptr<ifaddrs, decltype(&freeifaddrs)> owner(list, freeifaddrs);
  for (const ifaddrs* ifa = list; ifa != nullptr; ifa = ifa->ifa_next) {
    if (ifa->ifa_addr == nullptr || ifa->ifa_addr->sa_family != AF_INET) continue;
    const auto* addr = reinterpret_cast<const sockaddr_in*>(ifa->ifa_addr);
    if (addr->sin_addr.s_addr == source->s_addr) return std::string(ifa->ifa_name);
  }
  return std::nullopt;
}

std::optional<std::string> source_address_towards(const std::string& host) {
  const std::optional<in_addr> source = source_address_for(host);
  if (!source) return std::nullopt;
  char text[INET_ADDRSTRLEN] = {};
  if (inet_ntop(AF_INET, &*source, text, sizeof(text)) == nullptr) return std::nullopt;
  return std::string(text);
}

}  // namespace hvd::launcher::slurm
