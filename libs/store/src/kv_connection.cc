// SPDX-License-Identifier: Apache-2.0
#include "kv_connection.h"

#include <sys/socket.h>

#include <algorithm>
#include <cerrno>

namespace hvd::store {
namespace {

constexpr size_t kReadChunk = size_t{64} << 10;
constexpr size_t kKeepCapacity = size_t{64} << 10;

}  // namespace

void read_available(KvConnection& c, size_t limit) {
  char buf[kReadChunk];
  while (c.in.size() < limit) {
    const ssize_t n = recv(c.fd.get(), buf, std::min(sizeof(buf), limit - c.in.size()), 0);
    if (n > 0) {
      c.in.append(buf, static_cast<size_t>(n));
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      return;
    } else if (n == 0 || errno != EINTR) {
      c.eof = true;  // closed, reset or broken: nothing more will come
      return;
    }
  }
}

bool send_available(KvConnection& c) {
  while (c.out_sent < c.out.size()) {
    const ssize_t n = send(c.fd.get(), c.out.data() + c.out_sent, c.out.size() - c.out_sent,
                           MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n >= 0) {
      c.out_sent += static_cast<size_t>(n);
    } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
      return true;
    } else if (errno != EINTR) {
      return false;
    }
  }
  c.out.clear();
  c.out_sent = 0;
  release_if_large(c.out);
  return true;
}

void release_if_large(std::string& s) {
  if (s.empty() && s.capacity() > kKeepCapacity) std::string().swap(s);
}

}  // namespace hvd::store
