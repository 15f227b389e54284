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
#include "net/socket.h"
#include "store/kv_connection.h"
#include "store/kv_protocol.h"
#include "store/kv_table.h"

namespace hvd::store {
namespace {

using Clock = std::chrono::steady_clock;
using Connection = KvConnection;
using std::chrono::milliseconds;
// How long to stop accepting when out of descriptors or at the cap, instead of spinning on a
// listening socket that stays readable.
constexpr milliseconds kAcceptPause(100);
// Thousands of ranks connect at once; a short backlog drops their SYNs into seconds of retries.
constexpr int kListenBacklog = 4096;
constexpr int kAcceptsPerRound = 512;

void log_to_stderr(const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); }

}  // namespace

class KvServer::Loop {
 public:
  Loop(const std::string& bind_addr, uint16_t port, const auth::RunSecret& secret,
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

  uint16_t port() const { return port_; }
  StoreStats stats() const {
    const std::lock_guard<std::mutex> lock(stats_mu_);
    return stats_;
  }

  void stop() {
    const std::lock_guard<std::mutex> lock(stop_mu_);
    if (!thread_.joinable()) return;
    stopping_ = true;
    const uint64_t one = 1;
    [[maybe_unused]] const ssize_t rc = ::write(wake_fd_.get(), &one, sizeof(one));
    thread_.join();
    conns_.clear();
    listen_fd_.reset();
  }

 private:
  // The thread body. Errors outside any one connection (poll itself failing) must not end
  // the thread: clients would hang until their timeouts, so back off and keep serving.
  void run() noexcept {
    while (!stopping_) {
      try {
        if (!run_cycle()) return;
      } catch (...) {
        std::this_thread::sleep_for(milliseconds(10));
      }
    }
  }

  // One poll() round: wake-up fd, listening socket, every connection. Returns false on stop().
  bool run_cycle() {
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

  // Until the nearest WAIT deadline, authentication deadline or end of an accept pause.
  int poll_timeout_ms() {
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

  // Before the proof, one byte more than the response: enough to see a peer say too much.
  size_t input_limit(const Connection& c) const {
    return c.acceptor ? auth::kResponseBytes + 1 : kHeaderBytes + limits_.max_frame_bytes;
  }

  // The oldest connection still authenticating, dropping stale entries from the queue's front.
  Connection* oldest_unauthenticated() {
    while (!unauthenticated_.empty()) {
      const auto it = conns_.find(unauthenticated_.front());
      if (it != conns_.end() && !it->second.dead && it->second.acceptor) return &it->second;
      unauthenticated_.pop_front();
    }
    return nullptr;
  }

  // Closes the oldest unauthenticated connection, unless it is younger than the eviction grace
  // (it may be a rank that has not been scheduled to answer yet). Returns whether one was closed.
  bool evict_oldest() {
    Connection* oldest = oldest_unauthenticated();
    if (oldest == nullptr || Clock::now() < oldest->accepted_at + limits_.eviction_grace) {
      return false;
    }
    ++stats_evicted_;
    drop(*oldest);
    return true;
  }

  void accept_clients() {
    // Bounded, so that a flood that arrives as fast as it is taken in cannot keep this thread
    // from serving the connections it has: the listener stays readable for the next round.
    for (int round = 0; round < kAcceptsPerRound; ++round) {
      // Full: make room by evicting the oldest handshake past its grace; when every one is
      // younger, take the newcomer off the backlog and close it before the challenge (the
      // client connects again), so that the backlog keeps moving and a rank's connection is
      // not stuck behind a flood.
      bool turn_away = false;
      if (open_ >= limits_.max_connections ||
          unauthenticated_count_ >= limits_.max_unauthenticated) {
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

  void add_connection(int fd) {
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

  void log_cap_once() {
    if (cap_logged_) return;
    cap_logged_ = true;
    log_(str_cat("hvdrun: store: ", open_,
                 " connections open, the limit for this run (sized "
                 "from the rank count and RLIMIT_NOFILE); further connections wait until one "
                 "closes"));
  }

  void expire_unauthenticated(Clock::time_point now) {
    while (Connection* oldest = oldest_unauthenticated()) {
      if (oldest->accepted_at + limits_.auth_timeout > now) return;
      ++stats_rejected_;
      drop(*oldest);
    }
  }

  // Any exception here concerns this connection alone (bad frame, allocation for its request):
  // drop it and carry on with the others.
  void service(Connection& c, short revents) {
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

  // The response is all an unauthenticated peer may send: once it is in, check it; more than
  // it, or a wrong MAC, closes the connection with no answer.
  void authenticate(Connection& c) {
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

  // Never throws: a failed send marks the connection dead, because this also runs for clients
  // other than the one whose request is being served (a SET answering someone's WAIT).
  void flush(Connection& c) {
    if (!c.dead && !send_available(c)) drop(c);
  }

  // Carries out the complete frames in c.in, in order, until one parks or the reply backlog
  // is too long. Throws BootstrapError on a malformed or oversized frame.
  void pump(Connection& c) {
    size_t pos = 0;
    const std::string_view in(c.in);
    while (!c.dead && !table_.waiting(c.id) &&
           c.out.size() - c.out_sent < limits_.max_output_bytes &&
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

  void deliver_finished_waits() {
    for (auto& [id, reply] : table_.take_finished()) {
      const auto it = conns_.find(id);
      if (it == conns_.end() || it->second.dead) continue;
      send_reply(it->second, reply);
      ready_.push_back(id);
    }
  }

  void pump_ready() {
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

  void send_reply(Connection& c, const Reply& reply) {
    c.out += encode_reply(reply);
    flush(c);
  }

  void drop(Connection& c) {
    if (c.dead) return;
    table_.cancel(c.id);
    if (c.acceptor) --unauthenticated_count_;
    --open_;
    c.dead = true;
    c.fd.reset();
  }

  void end_cycle() {  // erases dropped connections, publishes the counters
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

  const auth::RunSecret secret_;  // Acceptors hold a reference to it
  StoreLimits limits_;
  LogSink log_;
  KvTable table_;
  net::Fd listen_fd_;
  net::Fd wake_fd_;
  uint16_t port_;
  std::thread thread_;
  std::mutex stop_mu_;
  std::atomic<bool> stopping_{false};
  mutable std::mutex stats_mu_;
  StoreStats stats_;
  // Everything below belongs to the serving thread.
  uint64_t next_id_ = 1;
  std::map<uint64_t, Connection> conns_;  // node-based: Connection& stays valid until erased
  std::deque<uint64_t> unauthenticated_;  // in accept order; may name closed or proven ones
  size_t open_ = 0;
  size_t unauthenticated_count_ = 0;
  size_t stats_authenticated_ = 0;
  size_t stats_rejected_ = 0;
  size_t stats_evicted_ = 0;
  size_t stats_turned_away_ = 0;
  bool cap_logged_ = false;
  std::vector<uint64_t> ready_;  // connections whose WAIT ended: they may have input queued
  Clock::time_point accept_paused_until_{};
};

KvServer::KvServer(const std::string& bind_addr, uint16_t port, const auth::RunSecret& secret,
                   const StoreLimits& limits, LogSink log)
    : loop_(std::make_unique<Loop>(bind_addr, port, secret, limits, std::move(log))) {}

KvServer::~KvServer() { stop(); }

uint16_t KvServer::port() const { return loop_->port(); }

StoreStats KvServer::stats() const { return loop_->stats(); }

void KvServer::stop() { loop_->stop(); }

}  // namespace hvd::store
