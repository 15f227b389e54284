// SPDX-License-Identifier: Apache-2.0
#include "store/kv_server.h"

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
// Thousands of ranks connect at once; a short backlog drops their SYNs into seconds of retries.
constexpr int kListenBacklog = 4096;

void log_to_stderr(const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); }

}  // namespace

KvServer::Loop::Loop(const std::string& bind_addr, uint16_t port, const auth::RunSecret& secret,
                     const StoreLimits& limits, LogSink log)
    : secret_(secret),
      limits_(limits),
      log_(log ? std::move(log) : LogSink(log_to_stderr)),
      table_(limits.max_stored_bytes),
      listen_fd_(net::listen_tcp(bind_addr, port, kListenBacklog)),
      wake_fd_(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)),
      port_(net::local_port(listen_fd_.get())) {
  limits_.max_frame_bytes = std::min(limits_.max_frame_bytes, kMaxFrameBytes);
  if (!wake_fd_.valid()) throw BootstrapError("store server: eventfd failed");
  if (fcntl(listen_fd_.get(), F_SETFL, O_NONBLOCK) != 0) {
    throw BootstrapError("store server: cannot make the listening socket non-blocking");
  }
  thread_ = std::thread([this] { run(); });
}

void KvServer::Loop::stop() {
  const std::lock_guard<std::mutex> lock(stop_mu_);
  if (!thread_.joinable()) return;
  stopping_ = true;
  const uint64_t one = 1;
  [[maybe_unused]] const ssize_t rc = ::write(wake_fd_.get(), &one, sizeof(one));
  thread_.join();
  conns_.clear();
  listen_fd_.reset();
}

void KvServer::Loop::run() noexcept {
  while (!stopping_) {
    try {
      if (!run_cycle()) return;
    } catch (...) {
      std::this_thread::sleep_for(milliseconds(10));
    }
  }
}

bool KvServer::Loop::run_cycle() {
  std::vector<pollfd> fds;
  std::vector<Connection*> owners;
  fds.reserve(conns_.size() + 2);
  owners.reserve(conns_.size());
  fds.push_back(pollfd{wake_fd_.get(), POLLIN, 0});
  // A negative fd is ignored by poll(): that is how accepting pauses.
  const bool accepting = Clock::now() >= accept_paused_until_;
  fds.push_back(pollfd{accepting ? listen_fd_.get() : -1, POLLIN, 0});
  for (auto& [id, c] : conns_) {
    // Not reading a full client any more: POLLRDHUP still tells us when it goes away.
    short events = c.in.size() < input_limit(c) ? POLLIN : POLLRDHUP;
    if (c.out_sent < c.out.size()) events |= POLLOUT;
    fds.push_back(pollfd{c.fd.get(), events, 0});
    owners.push_back(&c);
  }
  if (poll(fds.data(), fds.size(), poll_timeout_ms()) < 0) {
    if (errno == EINTR) return true;
    throw BootstrapError("store server: poll failed");
  }
  if (fds[0].revents != 0 || stopping_) return false;
  for (size_t i = 0; i < owners.size(); ++i) {
    if (fds[i + 2].revents != 0 && !owners[i]->dead) service(*owners[i], fds[i + 2].revents);
  }
  if ((fds[1].revents & POLLIN) != 0) accept_clients();
  const Clock::time_point now = Clock::now();
  expire_unauthenticated(now);
  table_.expire(now);
  deliver_finished_waits();
  pump_ready();
  end_cycle();
  return true;
}

int KvServer::Loop::poll_timeout_ms() {
  std::optional<Clock::time_point> nearest = table_.nearest_deadline();
  const auto consider = [&nearest](Clock::time_point t) {
    if (!nearest || t < *nearest) nearest = t;
  };
  if (accept_paused_until_ > Clock::now()) consider(accept_paused_until_);
  if (const Connection* oldest = oldest_unauthenticated()) {
    consider(oldest->accepted_at + limits_.auth_timeout);
  }
  if (!nearest) return -1;
  // Rounded up, so that waking up means the deadline has passed.
  const auto left = std::chrono::ceil<milliseconds>(*nearest - Clock::now()).count();
  return static_cast<int>(std::clamp<int64_t>(left, 0, INT_MAX));
}

size_t KvServer::Loop::input_limit(const Connection& c) const {
  return c.acceptor ? auth::kResponseBytes + 1 : kHeaderBytes + limits_.max_frame_bytes;
}

void KvServer::Loop::service(Connection& c, short revents) {
  try {
    if ((revents & POLLNVAL) != 0) throw InternalError("store server: polled a closed fd");
    if ((revents & (POLLIN | POLLRDHUP | POLLHUP | POLLERR)) != 0) {
      read_available(c, input_limit(c));
    }
    // RDHUP is only asked for while not reading (see run_cycle): it must end the client here.
    if ((revents & (POLLHUP | POLLERR | POLLRDHUP)) != 0) c.eof = true;
    if (c.acceptor && !c.dead) authenticate(c);
    if ((revents & POLLOUT) != 0) flush(c);
    // Requests that arrived before a close are still carried out; then the client goes.
    if (!c.dead && !c.acceptor) pump(c);
    if (c.eof) drop(c);
  } catch (...) {
    drop(c);
  }
}

void KvServer::Loop::flush(Connection& c) {
  if (!c.dead && !send_available(c)) drop(c);
}

void KvServer::Loop::pump(Connection& c) {
  size_t pos = 0;
  const std::string_view in(c.in);
  while (!c.dead && !table_.waiting(c.id) && c.out.size() - c.out_sent < limits_.max_output_bytes &&
         in.size() - pos >= kHeaderBytes) {
    // Checked as soon as the header is in, before the body is buffered.
    const uint32_t len = decode_frame_length(in.substr(pos));
    if (len > limits_.max_frame_bytes) {
      throw BootstrapError(str_cat("store frame of ", len, " bytes is over the server's limit"));
    }
    if (in.size() - pos - kHeaderBytes < len) break;
    Request req = decode_request(in.substr(pos + kHeaderBytes, len));
    pos += kHeaderBytes + len;
    if (std::optional<Reply> reply = table_.execute(c.id, req, Clock::now())) {
      send_reply(c, *reply);
    }
    deliver_finished_waits();  // a SET or ADD may have answered parked WAITs
  }
  c.in.erase(0, pos);
  release_if_large(c.in);
}

void KvServer::Loop::deliver_finished_waits() {
  for (auto& [id, reply] : table_.take_finished()) {
    const auto it = conns_.find(id);
    if (it == conns_.end() || it->second.dead) continue;
    send_reply(it->second, reply);
    ready_.push_back(id);
  }
}

void KvServer::Loop::pump_ready() {
  while (!ready_.empty()) {
    const uint64_t id = ready_.back();
    ready_.pop_back();
    const auto it = conns_.find(id);
    if (it == conns_.end() || it->second.dead) continue;
    try {
      pump(it->second);
    } catch (...) {
      drop(it->second);
    }
  }
}

void KvServer::Loop::send_reply(Connection& c, const Reply& reply) {
  c.out += encode_reply(reply);
  flush(c);
}

void KvServer::Loop::drop(Connection& c) {
  if (c.dead) return;
  table_.cancel(c.id);
  if (c.acceptor) --unauthenticated_count_;
  --open_;
  c.dead = true;
  c.fd.reset();
}

void KvServer::Loop::end_cycle() {
  size_t buffered = 0;
  size_t largest = 0;
  for (auto it = conns_.begin(); it != conns_.end();) {
    if (it->second.dead) {
      it = conns_.erase(it);
      continue;
    }
    const size_t held = it->second.held_bytes();
    buffered += held;
    largest = std::max(largest, held);
    ++it;
  }
  const std::lock_guard<std::mutex> lock(stats_mu_);
  StoreStats& s = stats_;
  s.connections = open_;
  s.peak_connections = std::max(s.peak_connections, open_);
  s.unauthenticated = unauthenticated_count_;
  s.authenticated_total = stats_authenticated_;
  s.rejected = stats_rejected_;
  s.evicted = stats_evicted_;
  s.turned_away = stats_turned_away_;
  s.stored_bytes = table_.stored_bytes();
  s.peak_stored_bytes = std::max(s.peak_stored_bytes, s.stored_bytes);
  s.buffered_bytes = buffered;
  s.peak_buffered_bytes = std::max(s.peak_buffered_bytes, buffered);
  s.peak_connection_buffer = std::max(s.peak_connection_buffer, largest);
}

KvServer::KvServer(const std::string& bind_addr, uint16_t port, const auth::RunSecret& secret,
                   const StoreLimits& limits, LogSink log)
    : loop_(std::make_unique<Loop>(bind_addr, port, secret, limits, std::move(log))) {}

KvServer::~KvServer() { stop(); }

uint16_t KvServer::port() const { return loop_->port(); }

StoreStats KvServer::stats() const { return loop_->stats(); }

void KvServer::stop() { loop_->stop(); }

}  // namespace hvd::store
