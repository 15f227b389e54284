// SPDX-License-Identifier: Apache-2.0
#include "codec/bytes.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "hvd/error.h"

namespace codec = hvd::codec;

namespace {

// What the reader reported when a field did not fit.
struct ShortRead : std::runtime_error {
  ShortRead(std::string w, size_t n, size_t l)
      : std::runtime_error(w), what_field(w), need(n), left(l) {}
  std::string what_field;
  size_t need;
  size_t left;
};

auto throw_short = [](const char* what, size_t need, size_t left) {
  throw ShortRead(what, need, left);
};

}  // namespace

TEST_CASE("codec: big-endian fields are written most significant byte first") {
  codec::ByteWriter<> w;
  w.put_be(0x0102, 2);
  w.put_be(0xAB, 1);
  w.put_be_string("hi");
  CHECK(w.bytes() == std::string("\x01\x02\xAB\x00\x00\x00\x02hi", 9));
  codec::ByteReader r(w.bytes(), throw_short);
  CHECK(r.get_be(2, "a") == 0x0102);
  CHECK(r.get_be(1, "b") == 0xAB);
  CHECK(r.get_text(r.get_be(4, "len"), "text") == "hi");
  CHECK(r.done());
}

TEST_CASE("codec: host-order fields, strings and vectors read back as written") {
  codec::ByteWriter<std::vector<char>> w;
  w.put<int32_t>(-7);
  w.put<double>(0.25);
  w.put_string("name");
  w.put_vector(std::vector<int64_t>{1, -2, 3});
  CHECK(w.bytes().size() == 4 + 8 + (4 + 4) + (4 + 3 * 8));
  const std::string bytes(w.bytes().begin(), w.bytes().end());
  codec::ByteReader r(bytes, throw_short);
  CHECK(r.get<int32_t>() == -7);
  CHECK(r.get<double>() == 0.25);
  CHECK(r.get_string() == "name");
  CHECK(r.get_vector<int64_t>() == std::vector<int64_t>{1, -2, 3});
  CHECK(r.left() == 0);
}

TEST_CASE("codec: a field past the end reaches on_short with what, need and left") {
  const std::string bytes("\x00\x01\x02", 3);
  codec::ByteReader r(bytes, throw_short);
  r.skip(1);
  try {
    r.get_be(4, "timeout");
    FAIL("a 4-byte field fit in 2 bytes");
  } catch (const ShortRead& e) {
    CHECK(e.what_field == "timeout");
    CHECK(e.need == 4);
    CHECK(e.left == 2);
  }
  SUBCASE("a count the rest cannot hold is refused before anything is allocated") {
    codec::ByteWriter<> w;
    w.put<uint32_t>(1000000);
    codec::ByteReader counts(w.bytes(), throw_short);
    CHECK_THROWS_AS(counts.get_count(40), ShortRead);
  }
  SUBCASE("a vector longer than its bytes is refused") {
    codec::ByteWriter<> w;
    w.put<uint32_t>(3);
    w.put<int64_t>(1);
    codec::ByteReader vectors(w.bytes(), throw_short);
    CHECK_THROWS_AS(vectors.get_vector<int64_t>(), ShortRead);
  }
}

TEST_CASE("codec: an on_short that returns is a bug, not a read past the end") {
  const std::string bytes("\x01", 1);
  codec::ByteReader r(bytes, [](const char*, size_t, size_t) {});
  CHECK_THROWS_AS(r.get<uint32_t>(), hvd::InternalError);
}
