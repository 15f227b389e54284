// SPDX-License-Identifier: Apache-2.0
#include "store/kv_protocol.h"

#include <algorithm>
#include <charconv>

#include "codec/bytes.h"
#include "hvd/error.h"
#include "hvd/str_cat.h"

namespace hvd::store {
namespace {

// Frames are big-endian fields (codec/bytes.h) after a 4-byte length; a frame is written with
// a placeholder there, which finish_frame() replaces.
codec::ByteWriter<> start_frame() {
  codec::ByteWriter<> frame;
  frame.put_be(0, static_cast<int>(kHeaderBytes));
  return frame;
}

// Replaces the 4 placeholder bytes at the front of `frame` with the body length.
std::string finish_frame(codec::ByteWriter<> frame) {
  codec::ByteWriter<> header;
  header.put_be(frame.bytes().size() - kHeaderBytes, static_cast<int>(kHeaderBytes));
  std::string bytes = frame.take();
  bytes.replace(0, kHeaderBytes, header.bytes());
  return bytes;
}

[[noreturn]] void truncated(const char* what, size_t need, size_t left) {
  throw BootstrapError(str_cat("store frame: truncated while reading ", what, " (need ", need,
                               " bytes, ", left, " left)"));
}

// Bounds-checked reader over one frame body; every failure names what it was reading.
class Reader {
 public:
  explicit Reader(std::string_view body) : in_(body, truncated) {}

  uint64_t uint(int bytes, const char* what) { return in_.get_be(bytes, what); }

  std::string string(size_t max_bytes, const char* what) {
    const uint64_t len = in_.get_be(4, what);
    if (len > max_bytes) {
      throw BootstrapError(str_cat("store frame: ", what, " of ", len, " bytes is over the ",
                                   max_bytes, "-byte limit"));
    }
    return in_.get_text(len, what);
  }

  void expect_end() const {
    if (!in_.done()) {
      throw BootstrapError(str_cat("store frame: ", in_.left(), " unexpected bytes at the end"));
    }
  }

 private:
  codec::ByteReader<decltype(&truncated)> in_;
};

bool valid_op(uint64_t op) { return op >= 1 && op <= static_cast<uint64_t>(Op::kPing); }

// Throws unless the request fits the limits and its op's key count; shared by both ends so
// that a request the server would reject is never sent.
void validate(const Request& r) {
  const size_t n = r.keys.size();
  const bool count_ok = r.op == Op::kPing   ? n == 0
                        : r.op == Op::kWait ? (n >= 1 && n <= kMaxKeys)
                                            : n == 1;
  if (!count_ok) {
    throw BootstrapError(str_cat("store ", op_name(r.op), " request with ", n, " keys"));
  }
  for (const std::string& key : r.keys) {
    if (key.empty()) throw BootstrapError(str_cat("store ", op_name(r.op), " with an empty key"));
    if (key.size() > kMaxKeyBytes) {
      throw BootstrapError(str_cat("store key '", key.substr(0, 64), "...' is ", key.size(),
                                   " bytes, over the ", kMaxKeyBytes, "-byte limit"));
    }
  }
  if (r.value.size() > kMaxValueBytes) {
    throw BootstrapError(str_cat("store value of ", r.value.size(), " bytes is over the ",
                                 kMaxValueBytes, "-byte limit"));
  }
}

}  // namespace

const char* op_name(Op op) {
  switch (op) {
    case Op::kSet:
      return "SET";
    case Op::kGet:
      return "GET";
    case Op::kWait:
      return "WAIT";
    case Op::kDelete:
      return "DELETE";
    case Op::kAdd:
      return "ADD";
    case Op::kPing:
      return "PING";
  }
  return "UNKNOWN";
}

std::string encode_request(const Request& request) {
  validate(request);
  codec::ByteWriter<> frame = start_frame();
  frame.put_be(static_cast<uint8_t>(request.op), 1);
  frame.put_be(request.timeout_ms, 4);
  frame.put_be(request.keys.size(), 2);
  for (const std::string& key : request.keys) frame.put_be_string(key);
  frame.put_be_string(request.value);
  if (frame.bytes().size() - kHeaderBytes > kMaxFrameBytes) {
    throw BootstrapError(str_cat("store ", op_name(request.op), " request of ",
                                 frame.bytes().size() - kHeaderBytes, " bytes is over the ",
                                 kMaxFrameBytes, "-byte frame limit"));
  }
  return finish_frame(std::move(frame));
}

std::string encode_reply(const Reply& reply) {
  HVD_CHECK(reply.value.size() <= kMaxValueBytes, "reply value of ", reply.value.size(), " bytes");
  codec::ByteWriter<> frame = start_frame();
  frame.put_be(static_cast<uint8_t>(reply.status), 1);
  frame.put_be_string(reply.value);
  return finish_frame(std::move(frame));
}

uint32_t decode_frame_length(std::string_view header) {
  HVD_CHECK(header.size() >= kHeaderBytes, "frame header of ", header.size(), " bytes");
  const auto len = static_cast<uint32_t>(
      codec::ByteReader(header, truncated).get_be(static_cast<int>(kHeaderBytes), "frame length"));
  if (len > kMaxFrameBytes) {
    throw BootstrapError(str_cat("store frame of ", len, " bytes is over the ", kMaxFrameBytes,
                                 "-byte limit (not an hvdrun store peer?)"));
  }
  return len;
}

Request decode_request(std::string_view body) {
  Reader in(body);
  const uint64_t op = in.uint(1, "op");
  if (!valid_op(op)) throw BootstrapError(str_cat("store frame: unknown op ", op));
  Request r;
  r.op = static_cast<Op>(op);
  r.timeout_ms = static_cast<uint32_t>(in.uint(4, "timeout"));
  const uint64_t key_count = in.uint(2, "key count");
  if (key_count > kMaxKeys) {
    throw BootstrapError(
        str_cat("store frame: ", key_count, " keys, over the limit of ", kMaxKeys));
  }
  r.keys.reserve(key_count);
  for (uint64_t i = 0; i < key_count; ++i) r.keys.push_back(in.string(kMaxKeyBytes, "key"));
  r.value = in.string(kMaxValueBytes, "value");
  in.expect_end();
  validate(r);
  return r;
}

Reply decode_reply(std::string_view body) {
  Reader in(body);
  const uint64_t status = in.uint(1, "status");
  if (status > static_cast<uint64_t>(ReplyStatus::kError)) {
    throw BootstrapError(str_cat("store frame: unknown reply status ", status));
  }
  Reply r;
  r.status = static_cast<ReplyStatus>(status);
  r.value = in.string(kMaxValueBytes, "value");
  in.expect_end();
  return r;
}

std::string format_counter(int64_t value) { return std::to_string(value); }

int64_t parse_counter(std::string_view text, std::string_view what) {
  int64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end) {
    throw BootstrapError(str_cat(what, " '", text.substr(0, 64), "' is not a 64-bit integer"));
  }
  return value;
}

std::string add_counter(std::string_view key, std::string_view current, std::string_view delta) {
  const int64_t old = parse_counter(current, str_cat("value of store key '", key, "'"));
  const int64_t step = parse_counter(delta, "ADD delta");
  int64_t sum = 0;
  if (__builtin_add_overflow(old, step, &sum)) {
    throw BootstrapError(
        str_cat("ADD ", step, " to store key '", key, "' (", old, ") overflows int64"));
  }
  return format_counter(sum);
}

std::string join_keys(const std::vector<std::string_view>& keys) {
  std::string text;
  for (size_t i = 0; i < std::min(keys.size(), kMaxNamedKeys); ++i) {
    text += str_cat(i == 0 ? "" : ", ", keys[i]);
  }
  if (keys.size() > kMaxNamedKeys) text += str_cat(" and ", keys.size() - kMaxNamedKeys, " more");
  return text;
}

}  // namespace hvd::store
