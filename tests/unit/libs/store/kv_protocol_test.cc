// SPDX-License-Identifier: Apache-2.0
#include "store/kv_protocol.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "hvd/error.h"

namespace store = hvd::store;
using store::Op;
using store::ReplyStatus;

namespace {

// The body of a frame, after checking that its header announces exactly that length.
std::string body_of(const std::string& frame) {
  REQUIRE(frame.size() >= store::kHeaderBytes);
  CHECK(store::decode_frame_length(frame) == frame.size() - store::kHeaderBytes);
  return frame.substr(store::kHeaderBytes);
}

store::Request round_trip(const store::Request& r) {
  return store::decode_request(body_of(store::encode_request(r)));
}

// A request body written by hand, to build frames the encoder refuses to produce.
std::string raw_request(uint8_t op, uint16_t key_count, const std::vector<std::string>& keys,
                        const std::string& value) {
  std::string b;
  const auto u32 = [&b](uint32_t v) {
    for (int s = 24; s >= 0; s -= 8) b.push_back(static_cast<char>((v >> s) & 0xFF));
  };
  b.push_back(static_cast<char>(op));
  u32(0);  // timeout
  b.push_back(static_cast<char>(key_count >> 8));
  b.push_back(static_cast<char>(key_count & 0xFF));
  for (const std::string& k : keys) {
    u32(static_cast<uint32_t>(k.size()));
    b += k;
  }
  u32(static_cast<uint32_t>(value.size()));
  b += value;
  return b;
}

}  // namespace

TEST_CASE("kv_protocol: every op round-trips") {
  const std::string binary("a\0b\xff\n", 5);
  const std::vector<store::Request> cases = {
      {Op::kSet, {"k"}, binary, 0},
      {Op::kGet, {"some/key"}, "", 0},
      {Op::kWait, {"a", "b", "c"}, "", 1234567},
      {Op::kDelete, {"k"}, "", 0},
      {Op::kAdd, {"counter"}, "-42", 0},
      {Op::kPing, {}, "", 0},
  };
  for (const store::Request& r : cases) {
    CAPTURE(store::op_name(r.op));
    const store::Request back = round_trip(r);
    CHECK(back.op == r.op);
    CHECK(back.keys == r.keys);
    CHECK(back.value == r.value);
    CHECK(back.timeout_ms == r.timeout_ms);
  }
}

TEST_CASE("kv_protocol: replies round-trip") {
  for (const ReplyStatus s :
       {ReplyStatus::kOk, ReplyStatus::kNotFound, ReplyStatus::kTimeout, ReplyStatus::kError}) {
    const store::Reply r{s, std::string("v\0x", 3)};
    const store::Reply back = store::decode_reply(body_of(store::encode_reply(r)));
    CHECK(back.status == s);
    CHECK(back.value == r.value);
  }
}

TEST_CASE("kv_protocol: the encoder refuses requests that break the limits") {
  CHECK_THROWS_AS(store::encode_request({Op::kGet, {}, "", 0}), hvd::BootstrapError);
  CHECK_THROWS_AS(store::encode_request({Op::kSet, {"a", "b"}, "", 0}), hvd::BootstrapError);
  CHECK_THROWS_AS(store::encode_request({Op::kPing, {"a"}, "", 0}), hvd::BootstrapError);
  CHECK_THROWS_AS(store::encode_request({Op::kSet, {""}, "", 0}), hvd::BootstrapError);
  const std::string long_key(store::kMaxKeyBytes + 1, 'k');
  CHECK_THROWS_AS(store::encode_request({Op::kSet, {long_key}, "", 0}), hvd::BootstrapError);
  CHECK_NOTHROW(store::encode_request({Op::kSet, {long_key.substr(1)}, "", 0}));
  const std::vector<std::string> too_many(store::kMaxKeys + 1, "k");
  CHECK_THROWS_AS(store::encode_request({Op::kWait, too_many, "", 0}), hvd::BootstrapError);
  const std::string big(store::kMaxValueBytes + 1, 'v');
  CHECK_THROWS_AS(store::encode_request({Op::kSet, {"k"}, big, 0}), hvd::BootstrapError);
  // Every field within its limit, the whole over the frame limit: refused before it is sent.
  const std::vector<std::string> wide(store::kMaxKeys, std::string(store::kMaxKeyBytes, 'k'));
  CHECK_THROWS_WITH_AS(store::encode_request({Op::kWait, wide, "", 0}),
                       doctest::Contains("frame limit"), hvd::BootstrapError);
}

TEST_CASE("kv_protocol: malformed frames are rejected with a clear error") {
  const std::string good = body_of(store::encode_request({Op::kSet, {"key"}, "value", 0}));

  SUBCASE("every truncation") {
    for (size_t n = 0; n < good.size(); ++n) {
      CAPTURE(n);
      CHECK_THROWS_AS(store::decode_request(good.substr(0, n)), hvd::BootstrapError);
    }
  }
  SUBCASE("trailing bytes") {
    CHECK_THROWS_WITH_AS(store::decode_request(good + "x"), doctest::Contains("unexpected bytes"),
                         hvd::BootstrapError);
  }
  SUBCASE("unknown op") {
    CHECK_THROWS_WITH_AS(store::decode_request(raw_request(99, 1, {"k"}, "")),
                         doctest::Contains("unknown op"), hvd::BootstrapError);
    CHECK_THROWS_AS(store::decode_request(raw_request(0, 1, {"k"}, "")), hvd::BootstrapError);
  }
  SUBCASE("key count that does not fit the op") {
    CHECK_THROWS_AS(store::decode_request(raw_request(2, 0, {}, "")), hvd::BootstrapError);
    CHECK_THROWS_AS(store::decode_request(raw_request(1, 2, {"a", "b"}, "")), hvd::BootstrapError);
  }
  SUBCASE("key count over the limit, announced but not sent") {
    CHECK_THROWS_WITH_AS(store::decode_request(raw_request(3, 60000, {}, "")),
                         doctest::Contains("over the limit"), hvd::BootstrapError);
  }
  SUBCASE("key length over the limit") {
    const std::string long_key(store::kMaxKeyBytes + 1, 'k');
    CHECK_THROWS_WITH_AS(store::decode_request(raw_request(1, 1, {long_key}, "")),
                         doctest::Contains("over the 4096-byte limit"), hvd::BootstrapError);
  }
  SUBCASE("a string length larger than the frame") {
    std::string b = raw_request(1, 1, {"k"}, "v");
    b[b.size() - 3] = 0x01;  // value length 0x00010001: within the limit, more than follows
    CHECK_THROWS_WITH_AS(store::decode_request(b), doctest::Contains("truncated"),
                         hvd::BootstrapError);
  }
  SUBCASE("unknown reply status") {
    std::string r = body_of(store::encode_reply({ReplyStatus::kOk, ""}));
    r[0] = 9;
    CHECK_THROWS_AS(store::decode_reply(r), hvd::BootstrapError);
    CHECK_THROWS_AS(store::decode_reply(""), hvd::BootstrapError);
  }
}

TEST_CASE("kv_protocol: an oversized frame is refused from its header alone") {
  CHECK(store::decode_frame_length(std::string("\0\0\0\5", 4)) == 5);
  CHECK_THROWS_WITH_AS(store::decode_frame_length("\xff\xff\xff\xff"),
                       doctest::Contains("over the"), hvd::BootstrapError);
  CHECK_THROWS_AS(store::decode_frame_length("GET "), hvd::BootstrapError);  // not our protocol
}

TEST_CASE("kv_protocol: counters") {
  CHECK(store::parse_counter("0", "x") == 0);
  CHECK(store::parse_counter("-9223372036854775808", "x") == INT64_MIN);
  CHECK(store::format_counter(INT64_MAX) == "9223372036854775807");
  for (const char* bad : {"", "1.5", "12a", " 1", "+1", "9223372036854775808", "abc"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(store::parse_counter(bad, "x"), hvd::BootstrapError);
  }
  CHECK(store::add_counter("k", "40", "2") == "42");
  CHECK(store::add_counter("k", "0", "-7") == "-7");
  CHECK_THROWS_WITH_AS(store::add_counter("k", "9223372036854775807", "1"),
                       doctest::Contains("overflows"), hvd::BootstrapError);
  CHECK_THROWS_WITH_AS(store::add_counter("k", "hello", "1"), doctest::Contains("'k'"),
                       hvd::BootstrapError);
}

TEST_CASE("kv_protocol: join_keys names a few keys and counts the rest") {
  CHECK(store::join_keys({}).empty());
  CHECK(store::join_keys({"a", "b"}) == "a, b");
  std::vector<std::string> many;
  for (size_t i = 0; i < store::kMaxNamedKeys + 3; ++i) many.push_back("k" + std::to_string(i));
  const std::vector<std::string_view> views(many.begin(), many.end());
  const std::string text = store::join_keys(views);
  CHECK(text.find("k0, k1") == 0);
  CHECK(text.find(" and 3 more") != std::string::npos);
}
