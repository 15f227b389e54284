// SPDX-License-Identifier: Apache-2.0
#pragma once
// Wire format of the rendezvous store (KvServer <-> KvClient).
//
// Every message is a frame: a 4-byte big-endian body length, then the body. Integers are
// big-endian; a "string" is a u32 length followed by that many bytes.
//
//   request body = u8 op | u32 timeout_ms | u16 key_count | key_count x string | string value
//   reply body   = u8 status | string value
//
//   op      keys   value         reply
//   SET     1      the value     OK
//   GET     1      -             OK + value, or NOT_FOUND (never blocks)
//   WAIT    1..N   -             OK once every key exists; TIMEOUT after timeout_ms, with the
//                                keys still missing, comma-separated, as the value
//   DELETE  1      -             OK if the key existed, NOT_FOUND if not
//   ADD     1      delta         OK + new value. Counters are stored as decimal text (so GET
//                                reads them) and the delta is sent the same way; an absent
//                                key counts as 0.
//   PING    0      -             OK
//
// timeout_ms matters only to WAIT. A request the server cannot carry out (ADD on a value that
// is not a number, overflow) gets ERROR with a message as the value. A frame that does not
// parse is a protocol violation: the server closes that connection.
//
// Before any frame, the client proves the run's secret (auth/handshake.h, purpose "store");
// the server closes, without an answer, a connection that sends anything else first.
//
// One connection carries one request at a time: the client sends a request and reads its
// reply before sending the next.
//
// Limits keep a confused or hostile peer from making the other side allocate without bound:
// keys are 1..kMaxKeyBytes bytes, at most kMaxKeys per request, values at most kMaxValueBytes,
// the whole body at most kMaxFrameBytes, and a frame announcing more is rejected from its
// header alone. The server may set a lower frame limit (StoreLimits::max_frame_bytes).

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hvd::store {

inline constexpr size_t kHeaderBytes = 4;
inline constexpr size_t kMaxKeyBytes = 4 * 1024;
inline constexpr size_t kMaxKeys = 4096;
// The store holds addresses, names and small blobs (store/store_limits.h says what): 2 MiB
// is room for the largest, a packed list of 16,384 host names, twice over.
inline constexpr size_t kMaxValueBytes = size_t{2} << 20;
/// Largest frame body either side accepts; a request whose keys and value together pass it
/// is refused by the encoder.
inline constexpr size_t kMaxFrameBytes = size_t{4} << 20;

/// The handshake purpose (auth/handshake.h) that every store connection proves first.
inline constexpr std::string_view kAuthPurpose = "store";

enum class Op : uint8_t { kSet = 1, kGet = 2, kWait = 3, kDelete = 4, kAdd = 5, kPing = 6 };
enum class ReplyStatus : uint8_t { kOk = 0, kNotFound = 1, kTimeout = 2, kError = 3 };

struct Request {
  Op op = Op::kPing;
  std::vector<std::string> keys;
  std::string value;
  uint32_t timeout_ms = 0;
};

struct Reply {
  ReplyStatus status = ReplyStatus::kOk;
  std::string value;
};

/// "SET", "GET", ... for messages.
const char* op_name(Op op);

/// The whole frame (header + body). Throws BootstrapError when the request breaks a limit
/// or has the wrong number of keys for its op, so that it is never sent.
std::string encode_request(const Request& request);
std::string encode_reply(const Reply& reply);

/// The body length announced by the first kHeaderBytes of `header`. Throws BootstrapError
/// when it is over kMaxFrameBytes. Precondition: header.size() >= kHeaderBytes.
uint32_t decode_frame_length(std::string_view header);

/// Parse a frame body (the bytes after the header). Throws BootstrapError on anything
/// malformed: truncation, trailing bytes, unknown op or status, a broken limit, or a key
/// count that does not fit the op.
Request decode_request(std::string_view body);
Reply decode_reply(std::string_view body);

/// Counter text <-> int64 for ADD. parse_counter throws BootstrapError naming `what` when
/// `text` is not a plain decimal int64.
std::string format_counter(int64_t value);
int64_t parse_counter(std::string_view text, std::string_view what);

/// ADD's arithmetic: the text of current + delta. Throws BootstrapError naming `key` when
/// either is not a counter or the sum overflows int64.
std::string add_counter(std::string_view key, std::string_view current, std::string_view delta);

/// "a, b, c", naming at most kMaxNamedKeys keys and summarising the rest as " and N more":
/// the value of a WAIT's TIMEOUT reply.
inline constexpr size_t kMaxNamedKeys = 16;
std::string join_keys(const std::vector<std::string_view>& keys);

}  // namespace hvd::store
