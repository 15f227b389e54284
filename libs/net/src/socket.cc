// SPDX-License-Identifier: Apache-2.0
#include "net/socket.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <memory>
#include <system_error>
#include <thread>

#include "hvd/error.h"
#include "hvd/str_cat.h"
#include "net/errno_text.h"

namespace hvd::net {
namespace {

using Clock = std::chrono::steady_clock;

// "host:port" of the peer, for error messages; "fd N" when the socket is not connected.
std::string peer_name(int fd) {
  sockaddr_storage addr{};
  socklen_t len = sizeof(addr);
  char host[NI_MAXHOST];
  char serv[NI_MAXSERV];
  if (getpeername(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0 ||
      getnameinfo(reinterpret_cast<sockaddr*>(&addr), len, host, sizeof(host), serv, sizeof(serv),
                  NI_NUMERICHOST | NI_NUMERICSERV) != 0) {
    return str_cat("fd ", fd);
  }
  return str_cat(host, ":", serv);
}

// Milliseconds until `deadline` for poll(): -1 for "never", rounded up so that a poll that
// returns 0 really is past the deadline.
int poll_timeout_ms(Clock::time_point deadline) {
  if (deadline == Clock::time_point::max()) return -1;
  const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());
  if (left.count() <= 0) return 0;
  return static_cast<int>(std::min<int64_t>(left.count(), INT_MAX));
}

// Waits until fd is ready for `events` (or has an error/hangup to report). Returns false when
// the deadline passed first.
bool wait_ready(int fd, short events, Clock::time_point deadline) {
  for (;;) {
    pollfd pfd{fd, events, 0};
    const int rc = poll(&pfd, 1, poll_timeout_ms(deadline));
    if (rc > 0) return true;
    if (rc == 0) {
      if (Clock::now() >= deadline) return false;
      continue;
    }
    if (errno != EINTR)
      throw BootstrapError(str_cat("poll on ", peer_name(fd), ": ", errno_text(errno)));
  }
}

struct AddrInfoDeleter {
  void operator()(addrinfo* ai) const { freeaddrinfo(ai); }
};
using AddrInfoPtr = std::unique_ptr<addrinfo, AddrInfoDeleter>;

// getaddrinfo's answer, or its error code (EAI_*) with a null pointer.
struct Resolved {
  AddrInfoPtr list;
  int gai_error = 0;
};

Resolved resolve(const char* host, uint16_t port, int flags) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = flags | AI_NUMERICSERV;
  addrinfo* list = nullptr;
  const std::string service = std::to_string(port);
  const int rc = getaddrinfo(host, service.c_str(), &hints, &list);
  return Resolved{AddrInfoPtr(rc == 0 ? list : nullptr), rc};
}

void set_blocking(int fd) {
  const int flags = fcntl(fd, F_GETFL);
  if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
    throw BootstrapError(str_cat("fcntl on ", peer_name(fd), ": ", errno_text(errno)));
  }
}

// One connect() to one address, bounded by the deadline. `error` is 0 on success.
struct Attempt {
  Fd fd;
  int error = 0;
};

Attempt connect_once(const addrinfo& ai, Clock::time_point deadline) {
  Fd fd(socket(ai.ai_family, ai.ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai.ai_protocol));
  if (!fd.valid()) return Attempt{Fd(), errno};
  if (connect(fd.get(), ai.ai_addr, ai.ai_addrlen) != 0) {
    if (errno != EINPROGRESS) return Attempt{Fd(), errno};
    if (!wait_ready(fd.get(), POLLOUT, deadline)) return Attempt{Fd(), ETIMEDOUT};
    int err = 0;
    socklen_t len = sizeof(err);
    if (getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &err, &len) != 0) err = errno;
    if (err != 0) return Attempt{Fd(), err};
  }
  return Attempt{std::move(fd), 0};
}

// Errors that mean "not up yet" rather than "wrong address".
bool retryable(int err) {
  return err == ECONNREFUSED || err == ETIMEDOUT || err == ECONNRESET || err == ECONNABORTED ||
         err == EAGAIN || err == EINTR;
}

}  // namespace

Fd& Fd::operator=(Fd&& other) noexcept {
  if (this != &other) reset(other.release());
  return *this;
}

int Fd::release() noexcept {
  const int fd = fd_;
  fd_ = -1;
  return fd;
}

void Fd::reset(int fd) noexcept {
  // close() is not retried on EINTR: on Linux the descriptor is gone either way.
  if (fd_ >= 0) ::close(fd_);
  fd_ = fd;
}

Fd listen_tcp(const std::string& bind_addr, uint16_t port, int backlog) {
  const std::string addr = bind_addr.empty() ? "0.0.0.0" : bind_addr;
  const std::string where = str_cat(addr, ":", port);
  const Resolved res = resolve(addr.c_str(), port, AI_PASSIVE);
  if (!res.list) {
    throw BootstrapError(
        str_cat("cannot resolve listen address ", where, ": ", gai_strerror(res.gai_error)));
  }
  int last_error = 0;
  for (const addrinfo* ai = res.list.get(); ai != nullptr; ai = ai->ai_next) {
    Fd fd(socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol));
    if (!fd.valid()) {
      last_error = errno;
      continue;
    }
    const int one = 1;
    setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (bind(fd.get(), ai->ai_addr, ai->ai_addrlen) == 0 && listen(fd.get(), backlog) == 0) {
      return fd;
    }
    last_error = errno;
  }
  throw BootstrapError(str_cat("cannot listen on ", where, ": ", errno_text(last_error)));
}

uint16_t local_port(int fd) {
  sockaddr_storage addr{};
  socklen_t len = sizeof(addr);
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    throw BootstrapError(str_cat("getsockname on fd ", fd, ": ", errno_text(errno)));
  }
  if (addr.ss_family == AF_INET) return ntohs(reinterpret_cast<sockaddr_in*>(&addr)->sin_port);
  if (addr.ss_family == AF_INET6) return ntohs(reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port);
  throw BootstrapError(str_cat("fd ", fd, " is not a TCP socket"));
}

Fd connect_tcp(const std::string& host, uint16_t port, std::chrono::milliseconds timeout) {
  const std::string where = str_cat(host, ":", port);
  const auto deadline = Clock::now() + timeout;
  std::string last_error = "no attempt made";
  auto backoff = std::chrono::milliseconds(10);
  for (;;) {
    const Resolved res = resolve(host.c_str(), port, 0);
    bool retry = false;
    if (!res.list) {
      last_error = gai_strerror(res.gai_error);
      if (res.gai_error != EAI_AGAIN) {
        throw BootstrapError(str_cat("cannot resolve ", where, ": ", last_error));
      }
      retry = true;
    }
    for (const addrinfo* ai = res.list.get(); ai != nullptr; ai = ai->ai_next) {
      Attempt attempt = connect_once(*ai, deadline);
      if (attempt.error == 0) {
        set_blocking(attempt.fd.get());
        const int one = 1;
        setsockopt(attempt.fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        return std::move(attempt.fd);
      }
      last_error = errno_text(attempt.error);
      retry = retry || retryable(attempt.error);
    }
    if (!retry) throw BootstrapError(str_cat("cannot connect to ", where, ": ", last_error));
    const auto now = Clock::now();
    if (now >= deadline) {
      throw TimeoutError(
          str_cat("cannot connect to ", where, " within ", timeout.count(), " ms: ", last_error));
    }
    std::this_thread::sleep_for(std::min<Clock::duration>(backoff, deadline - now));
    backoff = std::min(backoff * 2, std::chrono::milliseconds(200));
  }
}

void write_all(int fd, const void* data, size_t n, Clock::time_point deadline) {
  const char* p = static_cast<const char*>(data);
  size_t done = 0;
  while (done < n) {
    const ssize_t rc = send(fd, p + done, n - done, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (rc >= 0) {
      done += static_cast<size_t>(rc);
    } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
      if (!wait_ready(fd, POLLOUT, deadline)) {
        throw TimeoutError(str_cat("writing to ", peer_name(fd), ": peer stopped reading after ",
                                   done, " of ", n, " bytes"));
      }
    } else if (errno != EINTR) {
      throw BootstrapError(str_cat("writing to ", peer_name(fd), ": ", errno_text(errno)));
    }
  }
}

bool read_exact(int fd, void* data, size_t n, Clock::time_point deadline) {
  char* p = static_cast<char*>(data);
  size_t got = 0;
  while (got < n) {
    const ssize_t rc = recv(fd, p + got, n - got, MSG_DONTWAIT);
    if (rc > 0) {
      got += static_cast<size_t>(rc);
    } else if (rc == 0) {
      if (got == 0) return false;
      throw BootstrapError(str_cat("reading from ", peer_name(fd), ": connection closed after ",
                                   got, " of ", n, " bytes"));
    } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
      if (!wait_ready(fd, POLLIN, deadline)) {
        throw TimeoutError(str_cat("reading from ", peer_name(fd),
                                   ": no data before the deadline (", got, " of ", n,
                                   " bytes received)"));
      }
    } else if (errno != EINTR) {
      throw BootstrapError(str_cat("reading from ", peer_name(fd), ": ", errno_text(errno)));
    }
  }
  return true;
}

uint16_t pick_free_port(const std::string& bind_addr) {
  const Fd fd = listen_tcp(bind_addr, 0, 1);
  return local_port(fd.get());
}

}  // namespace hvd::net
