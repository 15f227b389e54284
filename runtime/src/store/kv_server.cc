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
#include <chrono>
#include <climits>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>
#include <vector>

#include "hvd/error.h"
#include "hvd/str_cat.h"
#include "net/socket.h"
#include "store/kv_protocol.h"

namespace hvd::store {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// A client's unread input is capped at one largest frame: past that we stop reading from it
// until its requests are processed (it is pipelining behind a parked WAIT).
constexpr size_t kMaxPendingInput = kHeaderBytes + kMaxFrameBytes;
// A client that does not read its replies gets no new requests processed past this backlog.
constexpr size_t kMaxPendingOutput = size_t{4} << 20;
constexpr size_t kReadChunk = size_t{64} << 10;
// How long to stop accepting when out of descriptors, instead of spinning on accept().
constexpr milliseconds kAcceptPause(100);

struct ParkedWait {
  std::vector<std::string> keys;
  size_t cursor = 0;  // keys before it were present; the wait is indexed under keys[cursor]
  Clock::time_point deadline;
};

struct Connection {
  uint64_t id = 0;
  net::Fd fd;
  std::string in;
  std::string out;
  size_t out_sent = 0;
  std::optional<ParkedWait> wait;  // at most one: a client waits for its reply
  bool eof = false;                // the peer closed its side
  bool dead = false;               // dropped; erased at the end of the cycle
};

}  // namespace

class KvServer::Loop {
 public:
  Loop(const std::string& bind_addr, uint16_t port)
      : listen_fd_(net::listen_tcp(bind_addr, port)),
        wake_fd_(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)),
        port_(net::local_port(listen_fd_.get())) {
    if (!wake_fd_.valid()) throw BootstrapError("store server: eventfd failed");
    if (fcntl(listen_fd_.get(), F_SETFL, O_NONBLOCK) != 0) {
      throw BootstrapError("store server: cannot make the listening socket non-blocking");
    }
    thread_ = std::thread([this] { run(); });
  }

  uint16_t port() const { return port_; }

  void stop() {
    const std::lock_guard<std::mutex> lock(stop_mu_);
    if (!thread_.joinable()) return;
    stopping_ = true;
    const uint64_t one = 1;
    [[maybe_unused]] const ssize_t rc = ::write(wake_fd_.get(), &one, sizeof(one));
    thread_.join();
    conns_.clear();
    waiters_.clear();
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
      short events = 0;
      // Not reading a full client any more: POLLRDHUP still tells us when it goes away.
      events |= c.in.size() < kMaxPendingInput ? POLLIN : POLLRDHUP;
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
    expire_waits(Clock::now());
    pump_ready();
    for (auto it = conns_.begin(); it != conns_.end();) {
      it = it->second.dead ? conns_.erase(it) : std::next(it);
    }
    return true;
  }

  // Until the nearest WAIT deadline (or the end of an accept pause); -1 when there is none.
  int poll_timeout_ms() const {
    std::optional<Clock::time_point> nearest;
    if (accept_paused_until_ > Clock::now()) nearest = accept_paused_until_;
    for (const auto& [id, c] : conns_) {
      if (c.wait && (!nearest || c.wait->deadline < *nearest)) nearest = c.wait->deadline;
    }
    if (!nearest) return -1;
    // Rounded up, so that waking up means the deadline has passed.
    const auto left = std::chrono::ceil<milliseconds>(*nearest - Clock::now()).count();
    return static_cast<int>(std::clamp<int64_t>(left, 0, INT_MAX));
  }

  void accept_clients() {
    for (;;) {
      const int fd = accept4(listen_fd_.get(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) {
        // Out of descriptors: pause rather than spin on a listening socket that stays readable.
        // Anything else (EAGAIN: none left; ECONNABORTED: that client left) ends this round.
        if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
          accept_paused_until_ = Clock::now() + kAcceptPause;
        }
        return;
      }
      const int one = 1;
      setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
      const uint64_t id = next_id_++;
      Connection& c = conns_[id];
      c.id = id;
      c.fd.reset(fd);
    }
  }

  // Any exception here concerns this connection alone (bad frame, allocation for its request):
  // drop it and carry on with the others.
  void service(Connection& c, short revents) {
    try {
      if ((revents & POLLNVAL) != 0) throw InternalError("store server: polled a closed fd");
      if ((revents & (POLLIN | POLLRDHUP | POLLHUP | POLLERR)) != 0) read_input(c);
      // RDHUP is only asked for while not reading (see run_cycle): it must end the client here.
      if ((revents & (POLLHUP | POLLERR | POLLRDHUP)) != 0) c.eof = true;
      if ((revents & POLLOUT) != 0) flush(c);
      // Requests that arrived before a close are still carried out; then the client goes.
      if (!c.dead) pump(c);
      if (c.eof) drop(c);
    } catch (...) {
      drop(c);
    }
  }

  void read_input(Connection& c) {
    char buf[kReadChunk];
    while (c.in.size() < kMaxPendingInput) {
      const ssize_t n = recv(c.fd.get(), buf, sizeof(buf), 0);
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

  // Never throws: a failed send marks the connection dead, because this also runs for clients
  // other than the one whose request is being served (a SET answering someone's WAIT).
  void flush(Connection& c) {
    while (!c.dead && c.out_sent < c.out.size()) {
      const ssize_t n = send(c.fd.get(), c.out.data() + c.out_sent, c.out.size() - c.out_sent,
                             MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n >= 0) {
        c.out_sent += static_cast<size_t>(n);
      } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
        return;
      } else if (errno != EINTR) {
        drop(c);
      }
    }
    if (c.out_sent == c.out.size()) {
      c.out.clear();
      c.out_sent = 0;
    }
  }

  // Carries out the complete frames in c.in, in order, until one parks or the reply backlog
  // is too long. Throws BootstrapError on a malformed frame.
  void pump(Connection& c) {
    size_t pos = 0;
    const std::string_view in(c.in);
    while (!c.dead && !c.wait && c.out.size() - c.out_sent < kMaxPendingOutput &&
           in.size() - pos >= kHeaderBytes) {
      // Checked as soon as the header is in, before the body is buffered.
      const uint32_t len = decode_frame_length(in.substr(pos));
      if (in.size() - pos - kHeaderBytes < len) break;
      Request req = decode_request(in.substr(pos + kHeaderBytes, len));
      pos += kHeaderBytes + len;
      if (std::optional<Reply> reply = execute(c, req)) send_reply(c, *reply);
    }
    c.in.erase(0, pos);
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

  // The reply, or nullopt when the request (a WAIT) is parked.
  std::optional<Reply> execute(Connection& c, Request& req) {
    switch (req.op) {
      case Op::kPing:
        return Reply{};
      case Op::kSet:
        set_value(req.keys[0], std::move(req.value));
        return Reply{};
      case Op::kGet: {
        const auto it = data_.find(req.keys[0]);
        if (it == data_.end()) return Reply{ReplyStatus::kNotFound, {}};
        return Reply{ReplyStatus::kOk, it->second};
      }
      case Op::kDelete:
        return Reply{data_.erase(req.keys[0]) > 0 ? ReplyStatus::kOk : ReplyStatus::kNotFound, {}};
      case Op::kAdd:
        return add(req.keys[0], req.value);
      case Op::kWait:
        return start_wait(c, std::move(req.keys), req.timeout_ms);
    }
    return Reply{ReplyStatus::kError, str_cat("unknown op ", static_cast<int>(req.op))};
  }

  // A value that is not a counter, or an overflow, is the caller's error, not the connection's.
  Reply add(const std::string& key, const std::string& delta_text) {
    try {
      const auto it = data_.find(key);
      std::string text = add_counter(key, it == data_.end() ? "0" : it->second, delta_text);
      set_value(key, text);
      return Reply{ReplyStatus::kOk, std::move(text)};
    } catch (const BootstrapError& e) {
      return Reply{ReplyStatus::kError, e.what()};
    }
  }

  void set_value(const std::string& key, std::string value) {
    if (data_.insert_or_assign(key, std::move(value)).second) on_key_created(key);
  }

  std::optional<Reply> start_wait(Connection& c, std::vector<std::string> keys, uint32_t ms) {
    ParkedWait w{std::move(keys), 0, Clock::now() + milliseconds(ms)};
    if (advance(w)) return Reply{};
    if (ms == 0) return Reply{ReplyStatus::kTimeout, missing_keys(w.keys)};
    waiters_[w.keys[w.cursor]].push_back(c.id);
    c.wait = std::move(w);
    return std::nullopt;
  }

  // Moves the cursor past keys that exist; true when all do. Keys passed earlier may have been
  // deleted since, so reaching the end checks them all once more.
  bool advance(ParkedWait& w) const {
    while (w.cursor < w.keys.size() && data_.count(w.keys[w.cursor]) > 0) ++w.cursor;
    if (w.cursor < w.keys.size()) return false;
    for (size_t i = 0; i < w.keys.size(); ++i) {
      if (data_.count(w.keys[i]) == 0) {
        w.cursor = i;
        return false;
      }
    }
    return true;
  }

  void on_key_created(const std::string& key) {
    const auto it = waiters_.find(key);
    if (it == waiters_.end()) return;
    const std::vector<uint64_t> ids = std::move(it->second);
    waiters_.erase(it);
    for (const uint64_t id : ids) {
      const auto c = conns_.find(id);
      HVD_CHECK(c != conns_.end() && c->second.wait, "store waiter index names connection ", id);
      ParkedWait& w = *c->second.wait;
      if (advance(w)) {
        c->second.wait.reset();
        send_reply(c->second, Reply{});
        ready_.push_back(id);
      } else {
        waiters_[w.keys[w.cursor]].push_back(id);
      }
    }
  }

  void unindex(const Connection& c) {
    if (!c.wait) return;
    const auto it = waiters_.find(c.wait->keys[c.wait->cursor]);
    if (it == waiters_.end()) return;
    std::vector<uint64_t>& ids = it->second;
    ids.erase(std::remove(ids.begin(), ids.end(), c.id), ids.end());
    if (ids.empty()) waiters_.erase(it);
  }

  void expire_waits(Clock::time_point now) {
    for (auto& [id, c] : conns_) {
      if (c.dead || !c.wait || c.wait->deadline > now) continue;
      unindex(c);
      const Reply reply{ReplyStatus::kTimeout, missing_keys(c.wait->keys)};
      c.wait.reset();
      send_reply(c, reply);
      ready_.push_back(id);
    }
  }

  std::string missing_keys(const std::vector<std::string>& keys) const {
    std::vector<std::string_view> missing;
    for (const std::string& key : keys) {
      if (data_.count(key) == 0) missing.push_back(key);
    }
    return join_keys(missing);
  }

  void send_reply(Connection& c, const Reply& reply) {
    c.out += encode_reply(reply);
    flush(c);
  }

  void drop(Connection& c) {
    unindex(c);
    c.wait.reset();
    c.dead = true;
    c.fd.reset();
  }

  net::Fd listen_fd_;
  net::Fd wake_fd_;
  uint16_t port_;
  std::thread thread_;
  std::mutex stop_mu_;
  std::atomic<bool> stopping_{false};
  // Everything below belongs to the serving thread.
  uint64_t next_id_ = 1;
  std::map<uint64_t, Connection> conns_;  // node-based: Connection& stays valid until erased
  std::unordered_map<std::string, std::string> data_;
  // missing key -> connections whose parked WAIT is indexed under it (exactly those).
  std::unordered_map<std::string, std::vector<uint64_t>> waiters_;
  std::vector<uint64_t> ready_;  // connections whose WAIT ended: they may have input queued
  Clock::time_point accept_paused_until_{};
};

KvServer::KvServer(const std::string& bind_addr, uint16_t port)
    : loop_(std::make_unique<Loop>(bind_addr, port)) {}

KvServer::~KvServer() { stop(); }

uint16_t KvServer::port() const { return loop_->port(); }

void KvServer::stop() { loop_->stop(); }

}  // namespace hvd::store
