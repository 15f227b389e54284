// SPDX-License-Identifier: Apache-2.0
#include "transport/tcp/tcp_transport.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <functional>
#include <system_error>
#include <utility>

#include "common/reduce_kernels.h"
#include "hvd/env_keys.h"
#include "hvd/error.h"
#include "hvd/str_cat.h"
#include "net/errno_text.h"
#include "transport/ring_peers.h"
#include "transport/setup_timeout.h"
#include "transport/tcp/tcp_links.h"

namespace hvd::backends::ring {
namespace {

using net::errno_text;

using Clock = std::chrono::steady_clock;

constexpr uint32_t kTcpMagic = 0x48564454;  // "HVDT"
// Connections a listener queues before accept(): every lower peer may connect at once.
constexpr int kBacklog = 1024;
constexpr size_t kScratchBytes = size_t{1} << 20;  // a multiple of every element size
constexpr size_t kMaxIo = size_t{4} << 20;         // bytes per sendmsg()/recvmsg() call
constexpr size_t kMaxRuns = 64;                    // pieces per sendmsg()/recvmsg() call
// Before sleeping in poll(), keep retrying the non-blocking calls this long: a peer on the same
// host (or a fast network) usually answers within microseconds, and a thread that sleeps
// pays a wake-up, which on a busy machine can cost a scheduler time slice.
constexpr auto kSpinBeforePoll = std::chrono::microseconds(50);

uint32_t fnv1a(const std::string& s) {
  uint32_t h = 2166136261u;
  for (const char c : s) h = (h ^ static_cast<uint8_t>(c)) * 16777619u;
  return h;
}

// Milliseconds left until deadline, for poll() and for calls that take a duration.
std::chrono::milliseconds left(Clock::time_point deadline) {
  const auto ms = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());
  return std::max(ms, std::chrono::milliseconds(0));
}

// The same, as a poll() timeout.
int poll_ms(Clock::time_point deadline) {
  return static_cast<int>(std::min<int64_t>(left(deadline).count(), INT_MAX));
}

std::string this_host() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0) {
    throw BootstrapError(str_cat("gethostname: ", errno_text(errno)));
  }
  return name;
}

bool bound_to_loopback(int fd) {
  sockaddr_storage addr{};
  socklen_t len = sizeof(addr);
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) return false;
  if (addr.ss_family == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(&addr);
    return (ntohl(in->sin_addr.s_addr) >> 24) == 127;
  }
  return addr.ss_family == AF_INET6 &&
         IN6_IS_ADDR_LOOPBACK(&reinterpret_cast<const sockaddr_in6*>(&addr)->sin6_addr);
}

// The listener, on bind_addr when given, else on the advertised host. A host NAME that this host
// resolves to loopback (Debian's "127.0.1.1 name" in /etc/hosts) is reached by other hosts at
// another address, which no rank here knows: listening on every interface would put the port on
// networks the job does not use, so that is an error that says what to set.
net::Fd listen_where_advertised(const std::string& host, const std::string& bind_addr) {
  if (!bind_addr.empty()) return net::listen_tcp(bind_addr, 0, kBacklog);
  net::Fd fd = net::listen_tcp(host, 0, kBacklog);
  in_addr literal{};
  if (bound_to_loopback(fd.get()) && inet_pton(AF_INET, host.c_str(), &literal) != 1 &&
      host != "localhost") {
    throw BootstrapError(str_cat("ring tcp: this host's name '", host,
                                 "' resolves to loopback here, so the other hosts could not "
                                 "connect to it; set ",
                                 env::kRingAddress,
                                 " to this host's address on the network the ranks share"));
  }
  return fd;
}

using Runs = std::array<iovec, kMaxRuns>;

// The runs of the next `max` bytes at `at` (which stays where it is), at most kMaxRuns of them:
// one sendmsg() or recvmsg() moves many small pieces of a fused message.
size_t runs_at(PieceCursor at, size_t max, Runs& runs) {
  size_t n = 0;
  while (n < runs.size() && max > 0) {
    const auto [data, len] = at.run(max);
    if (len == 0) break;
    runs[n++] = iovec{data, len};
    at.skip(len);
    max -= len;
  }
  return n;
}

// Where received bytes go: straight into the caller's pieces.
struct CopySink {
  PieceCursor buf;
  size_t got = 0;
  size_t space(size_t total, Runs& runs) const {
    return runs_at(buf, std::min(total - got, kMaxIo), runs);
  }
  void received(size_t n) {
    buf.skip(n);
    got += n;
  }
};

// Where received bytes go for send_recv_reduce: a scratch ring, from which every complete
// element is reduced into acc's pieces right away. The ring size is a multiple of the element
// size, so no element straddles its end; and the pieces hold whole elements, so neither does
// any run where a piece and a span of complete elements meet.
struct ReduceSink {
  char* scratch;
  size_t ring;
  PieceCursor acc;
  size_t elem;
  DataType dtype;
  ReduceOp op;
  size_t got = 0;
  size_t reduced = 0;

  size_t space(size_t total, Runs& runs) const {
    const size_t off = got % ring;
    const size_t n = std::min({total - got, ring - off, ring - (got - reduced)});
    runs[0] = iovec{scratch + off, n};
    return 1;
  }
  void received(size_t n) {
    got += n;
    const size_t complete = got - got % elem;
    while (reduced < complete) {
      const size_t off = reduced % ring;
      const size_t len = std::min(complete - reduced, ring - off);
      const char* from = scratch + off;
      acc.take(len, [&](char* into, size_t run) {
        reduce_into(into, from, run / elem, dtype, op);
        from += run;
      });
      reduced += len;
    }
  }
};

struct Side {
  int fd;
  int peer;
};

// One non-blocking receive from `from` into sink, of what is left of rbytes; whether any came.
template <typename Sink>
bool receive_some(int rank, Side from, Sink& sink, size_t rbytes, Runs& runs) {
  msghdr m{};
  m.msg_iov = runs.data();
  m.msg_iovlen = sink.space(rbytes, runs);
  const ssize_t rc = ::recvmsg(from.fd, &m, MSG_DONTWAIT);
  if (rc > 0) {
    sink.received(static_cast<size_t>(rc));
    return true;
  }
  if (rc == 0) {
    throw BackendError(str_cat("ring tcp: rank ", rank, ": rank ", from.peer,
                               " closed the connection (received ", sink.got, " of ", rbytes,
                               " bytes)"));
  }
  if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
    throw BackendError(str_cat("ring tcp: rank ", rank, ": receiving from rank ", from.peer, ": ",
                               errno_text(errno)));
  }
  return false;
}

// Moves sbytes to `to` and rbytes from `from` (into sink) at the same time.
template <typename Sink>
void exchange(int rank, Side to, PieceCursor sbuf, size_t sbytes, Side from, Sink& sink,
              size_t rbytes, std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  Runs runs{};
  size_t sent = 0;
  Clock::time_point spin_until{};  // set at the first call that made no progress
  while (sent < sbytes || sink.got < rbytes) {
    bool progress = false;
    if (sent < sbytes) {
      msghdr m{};
      m.msg_iov = runs.data();
      m.msg_iovlen = runs_at(sbuf, std::min(sbytes - sent, kMaxIo), runs);
      const ssize_t rc = ::sendmsg(to.fd, &m, MSG_DONTWAIT | MSG_NOSIGNAL);
      if (rc > 0) {
        sbuf.skip(static_cast<size_t>(rc));
        sent += static_cast<size_t>(rc);
        progress = true;
      } else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
        throw BackendError(str_cat("ring tcp: rank ", rank, ": sending to rank ", to.peer, ": ",
                                   errno_text(errno)));
      }
    }
    if (sink.got < rbytes && receive_some(rank, from, sink, rbytes, runs)) progress = true;
    if (progress) {
      spin_until = {};
      continue;
    }
    const auto now = Clock::now();
    if (spin_until == Clock::time_point{}) spin_until = now + kSpinBeforePoll;
    if (now < spin_until) continue;
    std::array<pollfd, 2> pfds{};
    nfds_t n = 0;
    if (sent < sbytes) pfds[n++] = pollfd{to.fd, POLLOUT, 0};
    if (sink.got < rbytes) pfds[n++] = pollfd{from.fd, POLLIN, 0};
    const int rc = poll(pfds.data(), n, poll_ms(deadline));
    if (rc < 0 && errno != EINTR) {
      throw BackendError(str_cat("ring tcp: rank ", rank, ": poll: ", errno_text(errno)));
    }
    if (rc == 0 && Clock::now() >= deadline) {
      throw TimeoutError(str_cat("ring tcp: rank ", rank, ": not done within ", timeout.count(),
                                 " ms (sent ", sent, " of ", sbytes, " bytes to rank ", to.peer,
                                 ", received ", sink.got, " of ", rbytes, " bytes from rank ",
                                 from.peer, ")"));
    }
  }
}

}  // namespace

TcpTransport::TcpTransport(bootstrap::KvStore& store, int rank, int size,
                           const auth::RunSecret& secret, TcpOptions options)
    : rank_(rank), size_(size), options_(std::move(options)) {
  HVD_CHECK(size > 0 && rank >= 0 && rank < size, "rank ", rank, " of ", size);
  if (size > 1) connect_peers(store, secret);
}

void TcpTransport::connect_peers(bootstrap::KvStore& store, const auth::RunSecret& secret) {
  const std::function<std::string(int)> key = [&](int r) {
    return str_cat(options_.scope, "/tcp/", r);
  };
  try {
    link(store, secret, key);
  } catch (const TimeoutError& e) {
    throw_setup_timeout("ring tcp", rank_, options_.setup_timeout,
                        unpublished_ranks(store, key, size_, rank_), e.what());
  }
}

void TcpTransport::link(bootstrap::KvStore& store, const auth::RunSecret& secret,
                        const std::function<std::string(int)>& key) {
  const auto deadline = Clock::now() + options_.setup_timeout;
  const std::string host = options_.advertise_host.empty() ? this_host() : options_.advertise_host;
  // Listening where the others are told to connect, not on every interface, keeps the port off
  // networks the job does not use.
  const net::Fd listener = listen_where_advertised(host, options_.bind_addr);
  store.set(key(rank_), str_cat(host, ":", net::local_port(listener.get())));
  store.barrier(options_.scope + "/tcp", left(deadline));

  LinkPlan plan;
  plan.rank = rank_;
  plan.size = size_;
  plan.mine = Hello{kTcpMagic, static_cast<uint32_t>(rank_), static_cast<uint32_t>(size_),
                    fnv1a(options_.scope)};
  std::vector<int> peers;
  if (options_.connect_all_at_setup) {
    for (int r = 0; r < size_; ++r) {
      if (r != rank_) peers.push_back(r);
    }
  } else {
    peers = algorithm_peers(rank_, size_);
  }
  for (const int peer : peers) {
    if (peer < rank_) {
      plan.accept_from.push_back(peer);
    } else {
      plan.connect_to.emplace(peer, store.get(key(peer), left(deadline)));
    }
  }
  Links links = link_peers(listener.get(), plan, secret, deadline);
  peers_ = std::move(links.peers);
  peak_sockets_ = links.peak_sockets;
}

int TcpTransport::fd_of(int peer, size_t bytes) const {
  if (bytes == 0) return -1;
  const auto it = peers_.find(peer);
  HVD_CHECK(it != peers_.end(), "ring tcp: rank ", rank_, " of ", size_, " has no connection to ",
            "rank ", peer, " (not a peer of any collective, see ring_peers.h)");
  return it->second.get();
}

void TcpTransport::send_recv(int to, PieceSpan send, int from, PieceSpan recv) {
  const size_t sbytes = send.bytes();
  const size_t rbytes = recv.bytes();
  CopySink sink{PieceCursor(recv)};
  exchange(rank_, Side{fd_of(to, sbytes), to}, PieceCursor(send), sbytes,
           Side{fd_of(from, rbytes), from}, sink, rbytes, options_.timeout);
}

void TcpTransport::send_recv_reduce(int to, PieceSpan send, int from, PieceSpan acc, DataType dtype,
                                    ReduceOp op) {
  const size_t elem = dtype_size(dtype);
  const size_t sbytes = send.bytes();
  const size_t rbytes = acc.bytes();
  // Grown to the largest message so far, up to kScratchBytes: a transport that carries only
  // small messages (the control channel's) keeps a small ring. Multiples of 8 bytes keep the
  // ring a multiple of every element size.
  const size_t want = std::min(kScratchBytes, (rbytes + 7) / 8 * 8);
  if (scratch_.size() < want) scratch_.resize(want);
  ReduceSink sink{scratch_.data(), scratch_.size(), PieceCursor(acc), elem, dtype, op};
  exchange(rank_, Side{fd_of(to, sbytes), to}, PieceCursor(send), sbytes,
           Side{fd_of(from, rbytes), from}, sink, rbytes, options_.timeout);
}

}  // namespace hvd::backends::ring
