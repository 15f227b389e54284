// SPDX-License-Identifier: Apache-2.0
#include "transport/tcp/tcp_links.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <climits>
#include <cstring>
#include <list>
#include <memory>
#include <set>
#include <string_view>
#include <system_error>
#include <thread>
#include <utility>

#include "auth/handshake.h"
#include "hvd/error.h"
#include "hvd/str_cat.h"
#include "net/errno_text.h"

namespace hvd::backends::ring {
namespace {

using net::errno_text;

using Clock = std::chrono::steady_clock;

constexpr std::string_view kPurpose = "ring";
constexpr size_t kHelloBytes = 16;

std::string encode(const Hello& h) {
  const uint32_t wire[4] = {htonl(h.magic), htonl(h.rank), htonl(h.size), htonl(h.scope)};
  return std::string(reinterpret_cast<const char*>(wire), sizeof(wire));
}

Hello decode(const std::string& bytes) {
  uint32_t wire[4];
  std::memcpy(wire, bytes.data(), sizeof(wire));
  return Hello{ntohl(wire[0]), ntohl(wire[1]), ntohl(wire[2]), ntohl(wire[3])};
}

void set_nonblocking(int fd) {
  const int flags = fcntl(fd, F_GETFL);
  if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) != 0) {
    throw BootstrapError(str_cat("ring tcp: fcntl: ", errno_text(errno)));
  }
}

// One connection in the middle of its handshake. Each stage first writes `out`, then reads
// `want` bytes into `in`, then advances; the last stage has nothing to read.
struct Conn {
  net::Fd fd;
  bool outgoing = false;
  int peer = -1;     // outgoing: the target; incoming: -1 until its hello
  std::string addr;  // outgoing: the address the peer published
  int stage = 0;
  std::string out;
  size_t sent = 0;
  std::string in;
  size_t want = 0;
  Clock::time_point deadline;
  Clock::time_point accepted_at;  // incoming only
  int turned_away = 0;            // outgoing: closed before the challenge this many times
  std::unique_ptr<auth::Acceptor> acceptor;
  std::unique_ptr<auth::Initiator> initiator;
};

enum class Step { kWaiting, kDone, kDrop };

class Linker {
 public:
  Linker(int listener, const LinkPlan& plan, const auth::RunSecret& secret,
         Clock::time_point deadline)
      : listener_(listener),
        plan_(plan),
        secret_(secret),
        deadline_(deadline),
        awaiting_(plan.accept_from.begin(), plan.accept_from.end()) {}

  Links run();

 private:
  void connect_all();
  void dial(Conn& c);
  void redial(Conn& c);
  bool room_for_one_more();
  void accept_all();
  Step progress(Conn& c);
  Step advance(Conn& c);
  Step advance_outgoing(Conn& c);
  Step advance_incoming(Conn& c);
  [[noreturn]] void fail(const Conn& c, const std::string& why) const;
  std::string missing() const;

  int listener_;
  const LinkPlan& plan_;
  const auth::RunSecret& secret_;
  Clock::time_point deadline_;
  std::set<int> awaiting_;  // lower peers whose hello has not come yet
  std::list<Conn> conns_;
  Links links_;
};

void Linker::fail(const Conn& c, const std::string& why) const {
  throw BootstrapError(str_cat("ring tcp: rank ", plan_.rank, ": connecting to rank ", c.peer,
                               " at ", c.addr, ": ", why));
}

void Linker::connect_all() {
  // connect() completes in the peer's backlog, whatever its thread is doing, so connecting to
  // every higher peer before serving anything cannot deadlock.
  for (const auto& [peer, addr] : plan_.connect_to) {
    Conn c;
    c.outgoing = true;
    c.peer = peer;
    c.addr = addr;
    dial(c);
    conns_.push_back(std::move(c));
  }
}

void Linker::dial(Conn& c) {
  const size_t colon = c.addr.rfind(':');
  uint16_t port = 0;
  if (colon == std::string::npos ||
      std::from_chars(c.addr.data() + colon + 1, c.addr.data() + c.addr.size(), port).ec !=
          std::errc()) {
    fail(c, "it published a malformed address");
  }
  const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline_ - Clock::now());
  try {
    c.fd = net::connect_tcp(c.addr.substr(0, colon), port,
                            std::max(left, std::chrono::milliseconds(1)));
  } catch (const TimeoutError& e) {
    throw TimeoutError(str_cat("ring tcp: rank ", plan_.rank, ": connecting to rank ", c.peer,
                               " at ", c.addr, ": ", e.what()));
  } catch (const BootstrapError& e) {
    fail(c, e.what());
  }
  set_nonblocking(c.fd.get());
  c.initiator = std::make_unique<auth::Initiator>(secret_, kPurpose);
  c.stage = 0;
  c.out.clear();
  c.sent = 0;
  c.in.clear();
  c.want = auth::kChallengeBytes;
  c.deadline = deadline_;
}

// The peer closed before its challenge: its listener had no room (a flood of strangers'
// connections), never a refused proof. Connect again after a short pause.
void Linker::redial(Conn& c) {
  c.fd.reset();
  const auto pause = std::chrono::milliseconds(5) * (1 << std::min(c.turned_away, 4));
  ++c.turned_away;
  std::this_thread::sleep_for(std::min(pause, std::chrono::milliseconds(50)));
  dial(c);
}

// Makes room for one more arriving connection: drops the oldest that has not said hello yet
// (one that has is a peer, never dropped) once it is past the grace. False when it is younger.
bool Linker::room_for_one_more() {
  size_t pending = 0;
  for (const Conn& c : conns_) pending += c.outgoing ? 0 : 1;
  if (pending < plan_.max_pending) return true;
  const auto oldest = std::find_if(conns_.begin(), conns_.end(),
                                   [](const Conn& c) { return !c.outgoing && c.peer < 0; });
  if (oldest == conns_.end()) return true;
  if (Clock::now() < oldest->accepted_at + plan_.eviction_grace) return false;
  conns_.erase(oldest);
  return true;
}

void Linker::accept_all() {
  // Bounded, so that a flood arriving as fast as it is taken in cannot stall the handshakes.
  for (size_t round = 0; round < plan_.max_pending; ++round) {
    const bool room = room_for_one_more();
    net::Fd fd(accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK));
    if (!fd.valid()) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return;
      // Out of descriptors, most likely because of a flood: refuse this round, keep serving.
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) return;
      throw BootstrapError(str_cat("ring tcp: rank ", plan_.rank, ": accept: ", errno_text(errno)));
    }
    // No room, every one young: closed before the challenge, off the backlog; a real peer
    // connects again (auth::TurnedAway).
    if (!room) continue;
    const int one = 1;
    setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    Conn c;
    c.fd = std::move(fd);
    c.accepted_at = Clock::now();
    c.acceptor = std::make_unique<auth::Acceptor>(secret_, kPurpose);
    c.out = c.acceptor->challenge();
    c.want = auth::kResponseBytes;
    c.deadline = std::min(deadline_, Clock::now() + plan_.per_connection);
    conns_.push_back(std::move(c));
  }
}

Step Linker::advance_outgoing(Conn& c) {
  try {
    if (c.stage == 0) {
      c.out = c.initiator->respond(c.in);
      c.want = auth::kConfirmBytes;
    } else if (c.stage == 1) {
      c.initiator->check_confirmation(c.in);
      c.out = encode(plan_.mine);
      c.want = kHelloBytes;
    } else {
      const Hello h = decode(c.in);
      if (h.magic != plan_.mine.magic || h.rank != static_cast<uint32_t>(c.peer) ||
          h.size != plan_.mine.size || h.scope != plan_.mine.scope) {
        fail(c, str_cat("the listener answered as rank ", h.rank, " of ", h.size,
                        " (another run, scope or communicator)"));
      }
      return Step::kDone;
    }
  } catch (const BootstrapError& e) {
    if (std::string_view(e.what()).rfind("ring tcp:", 0) == 0) throw;
    fail(c, e.what());
  }
  ++c.stage;
  c.in.clear();
  c.sent = 0;
  return Step::kWaiting;
}

Step Linker::advance_incoming(Conn& c) {
  if (c.stage == 0) {
    if (!c.acceptor->check_response(c.in)) return Step::kDrop;  // does not know the secret
    c.out = c.acceptor->confirmation();
    c.want = kHelloBytes;
  } else {
    // Proven, but possibly for another scope, size or an already connected rank: a stale or
    // confused process of this job; it is dropped without ending the run.
    const Hello h = decode(c.in);
    const auto peer = static_cast<int>(h.rank);
    if (h.magic != plan_.mine.magic || h.size != plan_.mine.size || h.scope != plan_.mine.scope ||
        h.rank > INT_MAX || awaiting_.count(peer) == 0) {
      return Step::kDrop;
    }
    awaiting_.erase(peer);
    c.peer = peer;
    c.out = encode(plan_.mine);
    c.want = 0;
  }
  ++c.stage;
  c.in.clear();
  c.sent = 0;
  return Step::kWaiting;
}

Step Linker::advance(Conn& c) { return c.outgoing ? advance_outgoing(c) : advance_incoming(c); }

// Moves the connection's bytes as far as they go without blocking.
Step Linker::progress(Conn& c) {
  for (;;) {
    while (c.sent < c.out.size()) {
      const ssize_t rc = ::send(c.fd.get(), c.out.data() + c.sent, c.out.size() - c.sent,
                                MSG_DONTWAIT | MSG_NOSIGNAL);
      if (rc > 0) {
        c.sent += static_cast<size_t>(rc);
      } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
        return Step::kWaiting;
      } else if (errno != EINTR) {
        if (!c.outgoing) return Step::kDrop;
        fail(c, str_cat("sending: ", errno_text(errno)));
      }
    }
    if (c.want == 0) return Step::kDone;  // an incoming connection's last stage: hello sent
    while (c.in.size() < c.want) {
      char buf[128];
      const ssize_t rc =
          ::recv(c.fd.get(), buf, std::min(sizeof(buf), c.want - c.in.size()), MSG_DONTWAIT);
      if (rc > 0) {
        c.in.append(buf, static_cast<size_t>(rc));
      } else if (rc == 0) {
        if (!c.outgoing) return Step::kDrop;
        if (c.stage == 0 && c.in.empty()) {
          redial(c);
          return Step::kWaiting;
        }
        fail(c, "the peer closed the connection during the handshake (a different run secret?)");
      } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
        return Step::kWaiting;
      } else if (errno != EINTR) {
        if (!c.outgoing) return Step::kDrop;
        if (c.stage == 0 && c.in.empty()) {
          redial(c);
          return Step::kWaiting;
        }
        fail(c, str_cat("receiving: ", errno_text(errno)));
      }
    }
    const Step s = advance(c);
    if (s != Step::kWaiting) return s;
  }
}

std::string Linker::missing() const {
  std::string text;
  for (const Conn& c : conns_) {
    if (c.outgoing) text += str_cat(text.empty() ? "" : ", ", c.peer, " (at ", c.addr, ")");
  }
  for (const int peer : awaiting_) text += str_cat(text.empty() ? "" : ", ", peer);
  return text;
}

Links Linker::run() {
  connect_all();
  set_nonblocking(listener_);
  std::vector<pollfd> pfds;
  for (;;) {
    const auto now = Clock::now();
    for (auto it = conns_.begin(); it != conns_.end();) {
      Step s = Step::kWaiting;
      if (!it->outgoing && now >= it->deadline) s = Step::kDrop;  // silent or too slow
      if (s == Step::kWaiting) s = progress(*it);
      if (s == Step::kDone) links_.peers.emplace(it->peer, std::move(it->fd));
      it = s == Step::kWaiting ? std::next(it) : conns_.erase(it);
    }
    const bool outgoing_left =
        std::any_of(conns_.begin(), conns_.end(), [](const Conn& c) { return c.outgoing; });
    links_.peak_sockets = std::max(links_.peak_sockets, 1 + conns_.size() + links_.peers.size());
    if (awaiting_.empty() && !outgoing_left) break;
    if (now >= deadline_) {
      throw TimeoutError(str_cat("ring tcp: rank ", plan_.rank, " of ", plan_.size,
                                 ": no handshake with rank(s) ", missing(),
                                 " before the setup deadline"));
    }
    pfds.clear();
    // No listener once every lower peer is in: what arrives then is nobody's, and waits.
    pfds.push_back(pollfd{awaiting_.empty() ? -1 : listener_, POLLIN, 0});
    Clock::time_point wake = deadline_;
    for (const Conn& c : conns_) {
      const short events = c.sent < c.out.size() ? POLLOUT : POLLIN;
      pfds.push_back(pollfd{c.fd.get(), events, 0});
      wake = std::min(wake, c.deadline);
    }
    const auto ms = std::chrono::ceil<std::chrono::milliseconds>(wake - Clock::now()).count();
    const int rc =
        poll(pfds.data(), pfds.size(), static_cast<int>(std::clamp<int64_t>(ms, 0, INT_MAX)));
    if (rc < 0 && errno != EINTR) {
      throw BootstrapError(str_cat("ring tcp: rank ", plan_.rank, ": poll: ", errno_text(errno)));
    }
    if (rc > 0 && pfds[0].revents != 0) accept_all();
  }
  // Whoever still handshakes is not a peer this rank waits for: close it with the listener.
  conns_.clear();
  return std::move(links_);
}

}  // namespace

Links link_peers(int listener, const LinkPlan& plan, const auth::RunSecret& secret,
                 std::chrono::steady_clock::time_point deadline) {
  return Linker(listener, plan, secret, deadline).run();
}

}  // namespace hvd::backends::ring
