// SPDX-License-Identifier: Apache-2.0
#include "store/kv_client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <charconv>
#include <limits>
#include <thread>

#include "auth/handshake.h"
#include "hvd/env_keys.h"
#include "hvd/error.h"
#include "hvd/str_cat.h"

namespace hvd::store {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// The wire carries timeouts as u32 milliseconds (about 49 days); longer ones are clamped.
uint32_t to_wire_ms(milliseconds timeout) {
  const int64_t ms = std::clamp<int64_t>(timeout.count(), 0, std::numeric_limits<uint32_t>::max());
  return static_cast<uint32_t>(ms);
}

milliseconds time_left(Clock::time_point deadline) {
  const auto left = std::chrono::ceil<milliseconds>(deadline - Clock::now());
  return std::max(left, milliseconds(0));
}

// "GET 'key'" / "WAIT 'a' (and 3 more)" for messages.
std::string describe(const Request& r) {
  std::string text = op_name(r.op);
  if (!r.keys.empty()) text += str_cat(" '", r.keys[0], "'");
  if (r.keys.size() > 1) text += str_cat(" (and ", r.keys.size() - 1, " more keys)");
  return text;
}

}  // namespace

KvClient::KvClient(const std::string& host, uint16_t port, const auth::RunSecret& secret,
                   milliseconds connect_timeout, milliseconds reply_margin)
    : endpoint_(str_cat(host, ":", port)), reply_margin_(reply_margin) {
  const auto deadline = Clock::now() + connect_timeout;
  // A server with no room for one more handshake (other users flooding its port) turns us away
  // before its challenge: connect again, with a short backoff, until the deadline.
  auto backoff = milliseconds(5);
  for (int turned_away = 0;; ++turned_away) {
    fd_ = net::connect_tcp(host, port, std::max(time_left(deadline), milliseconds(1)));
    try {
      auth::prove_as_initiator(fd_.get(), secret, kAuthPurpose, deadline);
      return;
    } catch (const auth::TurnedAway& e) {
      if (Clock::now() + backoff >= deadline) {
        throw TimeoutError(str_cat("store at ", endpoint_, ": turned away ", turned_away + 1,
                                   " times before the deadline: ", e.what()));
      }
    } catch (const TimeoutError& e) {
      throw TimeoutError(str_cat("store at ", endpoint_, ": authentication: ", e.what()));
    } catch (const Error& e) {
      throw BootstrapError(str_cat("store at ", endpoint_, ": authentication failed: ", e.what()));
    }
    fd_.reset();
    std::this_thread::sleep_for(backoff);
    backoff = std::min(backoff * 2, milliseconds(100));
  }
}

// One request/reply round trip. ERROR is the server refusing this request (the connection
// stays usable); any other status outside `expected` means the peer is not a store we know.
Reply KvClient::call(const Request& request, milliseconds server_time,
                     std::initializer_list<ReplyStatus> expected) {
  if (!fd_.valid()) {
    throw BootstrapError(str_cat("store ", describe(request), " at ", endpoint_,
                                 ": the connection was closed after an earlier failure"));
  }
  // Encoding first: a request over the limits throws here and the connection stays usable.
  const std::string frame = encode_request(request);
  const auto deadline = Clock::now() + server_time + reply_margin_;
  Reply reply;
  try {
    net::write_all(fd_.get(), frame.data(), frame.size(), deadline);
    char header[kHeaderBytes];
    std::string body;
    bool complete = net::read_exact(fd_.get(), header, sizeof(header), deadline);
    if (complete) {
      body.resize(decode_frame_length(std::string_view(header, sizeof(header))));
      complete = net::read_exact(fd_.get(), body.data(), body.size(), deadline);
    }
    if (!complete) throw BootstrapError("the server closed the connection (did hvdrun exit?)");
    reply = decode_reply(body);
  } catch (const TimeoutError& e) {
    fd_.reset();
    throw TimeoutError(str_cat("store ", describe(request), " at ", endpoint_, ": no reply within ",
                               (server_time + reply_margin_).count(), " ms: ", e.what()));
  } catch (const Error& e) {
    fd_.reset();
    throw BootstrapError(str_cat("store ", describe(request), " at ", endpoint_, ": ", e.what()));
  } catch (...) {
    fd_.reset();
    throw;
  }
  if (reply.status == ReplyStatus::kError) {
    throw BootstrapError(
        str_cat("store ", describe(request), " at ", endpoint_, " was refused: ", reply.value));
  }
  if (std::find(expected.begin(), expected.end(), reply.status) == expected.end()) {
    fd_.reset();
    throw BootstrapError(str_cat("store ", describe(request), " at ", endpoint_,
                                 ": unexpected reply status ", static_cast<int>(reply.status)));
  }
  return reply;
}

void KvClient::set(const std::string& key, const std::string& value) {
  call(Request{Op::kSet, {key}, value, 0}, milliseconds(0), {ReplyStatus::kOk});
}

std::string KvClient::get(const std::string& key, milliseconds timeout) {
  const auto deadline = Clock::now() + milliseconds(to_wire_ms(timeout));
  for (;;) {
    const milliseconds left = time_left(deadline);
    const Reply reply = call(Request{Op::kWait, {key}, {}, to_wire_ms(left)}, left,
                             {ReplyStatus::kOk, ReplyStatus::kTimeout});
    if (reply.status == ReplyStatus::kTimeout) {
      throw TimeoutError(str_cat("store key '", key, "' did not appear at ", endpoint_, " within ",
                                 timeout.count(), " ms"));
    }
    // The key may have been deleted between WAIT and GET: then wait for what time is left.
    if (std::optional<std::string> value = try_get(key)) return std::move(*value);
  }
}

std::optional<std::string> KvClient::try_get(const std::string& key) {
  Reply reply = call(Request{Op::kGet, {key}, {}, 0}, milliseconds(0),
                     {ReplyStatus::kOk, ReplyStatus::kNotFound});
  if (reply.status == ReplyStatus::kNotFound) return std::nullopt;
  return std::move(reply.value);
}

void KvClient::wait(const std::vector<std::string>& keys, milliseconds timeout) {
  const uint32_t ms = to_wire_ms(timeout);
  const Reply reply = call(Request{Op::kWait, keys, {}, ms}, milliseconds(ms),
                           {ReplyStatus::kOk, ReplyStatus::kTimeout});
  if (reply.status == ReplyStatus::kTimeout) {
    throw TimeoutError(str_cat("store keys did not appear at ", endpoint_, " within ",
                               timeout.count(), " ms; missing: ", reply.value));
  }
}

bool KvClient::del(const std::string& key) {
  const Reply reply = call(Request{Op::kDelete, {key}, {}, 0}, milliseconds(0),
                           {ReplyStatus::kOk, ReplyStatus::kNotFound});
  return reply.status == ReplyStatus::kOk;
}

int64_t KvClient::add(const std::string& key, int64_t delta) {
  const Reply reply =
      call(Request{Op::kAdd, {key}, format_counter(delta), 0}, milliseconds(0), {ReplyStatus::kOk});
  return parse_counter(reply.value, str_cat("store ADD reply for '", key, "'"));
}

void KvClient::ping() { call(Request{Op::kPing, {}, {}, 0}, milliseconds(0), {ReplyStatus::kOk}); }

KvClient connect_from_env(const std::map<std::string, std::string>& env, milliseconds timeout) {
  const auto lookup = [&env](const char* name) -> const std::string& {
    const auto it = env.find(name);
    if (it == env.end() || it->second.empty()) {
      throw BootstrapError(str_cat(name,
                                   " is not set: hvdrun sets it to the address of the run's "
                                   "rendezvous store"));
    }
    return it->second;
  };
  const std::string& host = lookup(env::kStoreAddr);
  const std::string& port_text = lookup(env::kStorePort);
  unsigned port = 0;
  const char* end = port_text.data() + port_text.size();
  const auto [ptr, ec] = std::from_chars(port_text.data(), end, port);
  if (ec != std::errc() || ptr != end || port == 0 || port > 65535) {
    throw BootstrapError(str_cat(env::kStorePort, "='", port_text, "' is not a TCP port"));
  }
  // A store that stops answering must not hold the rank longer than the user's bound either.
  return KvClient(host, static_cast<uint16_t>(port), auth::secret_from_env(env), timeout,
                  std::min(kDefaultReplyMargin, timeout));
}

}  // namespace hvd::store

namespace hvd::store {

std::string KvClient::local_address() const {
  sockaddr_storage addr{};
  socklen_t len = sizeof(addr);
  if (!fd_.valid() || getsockname(fd_.get(), reinterpret_cast<sockaddr*>(&addr), &len) != 0)
    return {};
  char text[INET6_ADDRSTRLEN] = {};
  const void* raw =
      addr.ss_family == AF_INET
          ? static_cast<const void*>(&reinterpret_cast<sockaddr_in*>(&addr)->sin_addr)
          : static_cast<const void*>(&reinterpret_cast<sockaddr_in6*>(&addr)->sin6_addr);
  if (inet_ntop(addr.ss_family, raw, text, sizeof(text)) == nullptr) return {};
  return text;
}

}  // namespace hvd::store
