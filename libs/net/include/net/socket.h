// SPDX-License-Identifier: Apache-2.0
#pragma once
// Small POSIX TCP helpers with deadlines, shared by the rendezvous store and the TCP backend.
// Every blocking step takes a timeout or deadline so that a dead or hung peer turns into a
// TimeoutError or BootstrapError instead of a hang. All sockets are close-on-exec, so ranks
// started by hvdrun never inherit the store's sockets.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

namespace hvd::net {

/// Owns one file descriptor and closes it on destruction. Move-only; -1 means empty.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) noexcept : fd_(fd) {}
  ~Fd() { reset(); }
  Fd(Fd&& other) noexcept : fd_(other.release()) {}
  Fd& operator=(Fd&& other) noexcept;
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;

  int get() const noexcept { return fd_; }
  bool valid() const noexcept { return fd_ >= 0; }
  /// Gives up ownership without closing; the caller must close the returned descriptor.
  int release() noexcept;
  /// Closes the owned descriptor (if any) and takes ownership of `fd`.
  void reset(int fd = -1) noexcept;

 private:
  int fd_ = -1;
};

/// Binds and listens on bind_addr:port (port 0 = any free port) with SO_REUSEADDR.
/// bind_addr "" or "0.0.0.0" means every IPv4 interface. Throws BootstrapError naming the
/// address and the errno text.
Fd listen_tcp(const std::string& bind_addr, uint16_t port, int backlog = 128);

/// The local port a socket is bound to. Throws BootstrapError.
uint16_t local_port(int fd);

/// Connects to host:port (name resolved with getaddrinfo) and sets TCP_NODELAY. Refused
/// connections are retried until `timeout`, because a rank may start before the server
/// listens. Throws TimeoutError when time runs out and BootstrapError on any other failure;
/// both name host:port and the last errno text. The returned socket is blocking.
Fd connect_tcp(const std::string& host, uint16_t port, std::chrono::milliseconds timeout);

/// Sends all n bytes, retrying on EINTR and short writes; never raises SIGPIPE. Works on
/// blocking and non-blocking sockets. Throws BootstrapError on failure and TimeoutError when
/// the peer stops reading past `deadline` (by default, never).
void write_all(
    int fd, const void* data, size_t n,
    std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max());

/// Reads exactly n bytes. Returns false on an orderly EOF before the first byte (the peer
/// closed between messages). Throws TimeoutError past `deadline`, and BootstrapError on a
/// socket error or an EOF in the middle of the n bytes.
bool read_exact(int fd, void* data, size_t n, std::chrono::steady_clock::time_point deadline);

/// A port that was free a moment ago on bind_addr (bind to port 0, read it, close). Another
/// process may take it before the caller binds it; use it only where the port must be chosen
/// before the program that binds it starts (MASTER_PORT). Throws BootstrapError.
uint16_t pick_free_port(const std::string& bind_addr = "0.0.0.0");

}  // namespace hvd::net
