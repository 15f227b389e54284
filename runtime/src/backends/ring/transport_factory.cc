// SPDX-License-Identifier: Apache-2.0
#include "backends/ring/transport_factory.h"

#include "backends/ring/shm_transport.h"
#include "backends/ring/tcp_transport.h"
#include "hvd/error.h"

namespace hvd::backends::ring {

std::unique_ptr<Transport> make_transport(const std::string& kind, bootstrap::KvStore& store,
                                          int rank, int size, const std::string& scope,
                                          const auth::RunSecret& secret, bool one_host) {
  HVD_CHECK(kind == "shm" || kind == "tcp", "unknown ring transport '", kind, "'");
  if (kind == "shm") {
    ShmOptions options;
    options.scope = scope;
    return std::make_unique<ShmTransport>(store, rank, size, options);
  }
  TcpOptions options;
  options.scope = scope;
  // The address this rank used to reach hvdrun's store is one the other ranks can reach too,
  // which a bare host name is not always (node aliases, hosts without DNS entries).
  options.advertise_host = one_host ? "127.0.0.1" : store.reachable_address();
  return std::make_unique<TcpTransport>(store, rank, size, secret, options);
}

}  // namespace hvd::backends::ring
