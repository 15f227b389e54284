// SPDX-License-Identifier: Apache-2.0
#include "transport/transport_factory.h"

#include <arpa/inet.h>

#include "hvd/env_keys.h"
#include "hvd/error.h"
#include "hvd/str_cat.h"
#include "transport/shm/shm_transport.h"
#include "transport/tcp/listen_address.h"
#include "transport/tcp/tcp_transport.h"

namespace hvd::backends::ring {
namespace {

std::string advertised_address(bootstrap::KvStore& store, const TransportSetup& setup) {
  if (setup.one_host) return "127.0.0.1";
  if (!setup.address.empty()) return setup.address;
  // The address this rank used to reach hvdrun's store is one the other ranks can reach too,
  // which a bare host name is not always (node aliases, hosts without DNS entries).
  std::string address = store.reachable_address();
  if (address.empty() && !setup.hosts.empty()) {
    address = route_listen_address(setup.self_host, setup.hosts);
  }
  return address;  // "": the host name, checked by the transport
}

}  // namespace

TransportSetup transport_setup(const EnvMap& env, const bootstrap::WorldInfo& world,
                               std::chrono::milliseconds timeout) {
  TransportSetup setup;
  setup.one_host = world.cross_size == 1;
  setup.timeout = timeout;
  setup.address = env_string(env, env::kRingAddress, "");
  in6_addr parsed{};
  if (!setup.address.empty() && inet_pton(AF_INET, setup.address.c_str(), &parsed) != 1 &&
      inet_pton(AF_INET6, setup.address.c_str(), &parsed) != 1) {
    throw ConfigError(str_cat(env::kRingAddress, "='", setup.address,
                              "' is not a numeric IPv4 or IPv6 address of this host"));
  }
  setup.self_host = world.hostname;
  setup.hosts = world.hostnames;
  return setup;
}

std::unique_ptr<Transport> make_transport(const std::string& kind, bootstrap::KvStore& store,
                                          int rank, int size, const std::string& scope,
                                          const auth::RunSecret& secret,
                                          const TransportSetup& setup) {
  HVD_CHECK(kind == "shm" || kind == "tcp", "unknown ring transport '", kind, "'");
  if (kind == "shm") {
    ShmOptions options;
    options.scope = scope;
    options.setup_timeout = setup.timeout;
    return std::make_unique<ShmTransport>(store, rank, size, options);
  }
  TcpOptions options;
  options.scope = scope;
  options.advertise_host = advertised_address(store, setup);
  options.setup_timeout = setup.timeout;
  return std::make_unique<TcpTransport>(store, rank, size, secret, options);
}

}  // namespace hvd::backends::ring
