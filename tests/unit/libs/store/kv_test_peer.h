// SPDX-License-Identifier: Apache-2.0
// What the store's tests share: a client of a server under test, its run secret, a raw frame
// sent by hand, and the liveness bound every wait uses.
#pragma once

#include <chrono>
#include <string>

#include "auth/run_secret.h"
#include "net/socket.h"
#include "store/kv_client.h"
#include "store/kv_protocol.h"
#include "store/kv_server.h"

namespace hvd::test::kv {

inline constexpr std::chrono::milliseconds kLong(20000);  // liveness bound: never reached when things work

inline const auth::RunSecret& secret() {
  static const auth::RunSecret s = auth::RunSecret::generate();
  return s;
}

inline store::KvClient client_of(const store::KvServer& server) {
  return store::KvClient("127.0.0.1", server.port(), secret(), kLong);
}

inline void send_frame(const net::Fd& fd, const store::Request& r) {
  const std::string frame = store::encode_request(r);
  net::write_all(fd.get(), frame.data(), frame.size());
}

}  // namespace hvd::test::kv
