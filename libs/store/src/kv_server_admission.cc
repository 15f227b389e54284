// SPDX-License-Identifier: Apache-2.0
// The store server's door: accepting connections up to the cap, evicting the oldest
// unauthenticated one when full, and the challenge-response every peer must pass first.
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <deque>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "auth/handshake.h"
#include "hvd/error.h"
#include "hvd/str_cat.h"
#include "kv_server_loop.h"
#include "net/socket.h"

namespace hvd::store {
namespace {

using std::chrono::milliseconds;
// How long to stop accepting when out of descriptors or at the cap, instead of spinning on a
// listening socket that stays readable.
constexpr milliseconds kAcceptPause(100);
constexpr int kAcceptsPerRound = 512;

}  // namespace

Connection* KvServer::Loop::oldest_unauthenticated() {
  while (!unauthenticated_.empty()) {
    const auto it = conns_.find(unauthenticated_.front());
    if (it != conns_.end() && !it->second.dead && it->second.acceptor) return &it->second;
    unauthenticated_.pop_front();
  }
  return nullptr;
}

bool KvServer::Loop::evict_oldest() {
  Connection* oldest = oldest_unauthenticated();
  if (oldest == nullptr || Clock::now() < oldest->accepted_at + limits_.eviction_grace) {
    return false;
  }
  ++stats_evicted_;
  drop(*oldest);
  return true;
}

void KvServer::Loop::accept_clients() {
  // Bounded, so that a flood that arrives as fast as it is taken in cannot keep this thread
  // from serving the connections it has: the listener stays readable for the next round.
  for (int round = 0; round < kAcceptsPerRound; ++round) {
    // Full: make room by evicting the oldest handshake past its grace; when every one is
    // younger, take the newcomer off the backlog and close it before the challenge (the
    // client connects again), so that the backlog keeps moving and a rank's connection is
    // not stuck behind a flood.
    bool turn_away = false;
    if (open_ >= limits_.max_connections || unauthenticated_count_ >= limits_.max_unauthenticated) {
      if (!evict_oldest()) {
        if (unauthenticated_count_ == 0) {  // all are proven ranks: wait until one closes
          log_cap_once();
          accept_paused_until_ = Clock::now() + kAcceptPause;
          return;
        }
        turn_away = true;
      }
    }
    const int fd = accept4(listen_fd_.get(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      // Out of descriptors: pause rather than spin. Anything else (EAGAIN: none left;
      // ECONNABORTED: that client left) ends this round.
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
        accept_paused_until_ = Clock::now() + kAcceptPause;
      }
      return;
    }
    if (turn_away) {
      ::close(fd);
      ++stats_turned_away_;
      continue;
    }
    add_connection(fd);
  }
}

void KvServer::Loop::add_connection(int fd) {
  const int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  const uint64_t id = next_id_++;
  Connection& c = conns_[id];
  c.id = id;
  c.fd.reset(fd);
  c.accepted_at = Clock::now();
  c.acceptor = std::make_unique<auth::Acceptor>(secret_, kAuthPurpose);
  ++open_;
  ++unauthenticated_count_;
  unauthenticated_.push_back(id);
  c.out = c.acceptor->challenge();
  flush(c);
}

void KvServer::Loop::log_cap_once() {
  if (cap_logged_) return;
  cap_logged_ = true;
  log_(str_cat("hvdrun: store: ", open_,
               " connections open, the limit for this run (sized "
               "from the rank count and RLIMIT_NOFILE); further connections wait until one "
               "closes"));
}

void KvServer::Loop::expire_unauthenticated(Clock::time_point now) {
  while (Connection* oldest = oldest_unauthenticated()) {
    if (oldest->accepted_at + limits_.auth_timeout > now) return;
    ++stats_rejected_;
    drop(*oldest);
  }
}

void KvServer::Loop::authenticate(Connection& c) {
  if (c.in.size() < auth::kResponseBytes) return;
  if (c.in.size() > auth::kResponseBytes || !c.acceptor->check_response(c.in)) {
    ++stats_rejected_;
    drop(c);
    return;
  }
  c.out += c.acceptor->confirmation();
  c.acceptor.reset();
  c.in.clear();
  --unauthenticated_count_;
  ++stats_authenticated_;
  flush(c);
}

}  // namespace hvd::store
