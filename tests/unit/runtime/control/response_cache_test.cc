// SPDX-License-Identifier: Apache-2.0
#include "control/response_cache.h"

#include <doctest/doctest.h>

namespace control = hvd::control;

namespace {
control::Request req(const std::string& name, std::vector<int64_t> shape = {8}) {
  control::Request r;
  r.name = name;
  r.shape = std::move(shape);
  return r;
}
control::Response resp(const std::string& name) {
  control::Response r;
  r.names = {name};
  return r;
}
void put(control::ResponseCache& c, const std::string& name) { c.put(resp(name), req(name)); }
}  // namespace

TEST_CASE("response_cache: hit, miss and invalid") {
  control::ResponseCache cache(4);
  CHECK(cache.lookup(req("a")) == control::ResponseCache::State::kMiss);
  put(cache, "a");
  CHECK(cache.lookup(req("a")) == control::ResponseCache::State::kHit);
  CHECK(cache.lookup(req("a", {9})) == control::ResponseCache::State::kInvalid);
  CHECK(cache.bit_of("a") == 0);
  CHECK(cache.use(0).names[0] == "a");
  cache.erase(0);
  CHECK(cache.lookup(req("a")) == control::ResponseCache::State::kMiss);
  CHECK(cache.size() == 0);
}

TEST_CASE("response_cache: least recently used is evicted, and bits are reused lowest first") {
  control::ResponseCache cache(3);
  put(cache, "a");
  put(cache, "b");
  put(cache, "c");
  CHECK(cache.bits() == std::vector<size_t>{0, 1, 2});
  cache.use(cache.bit_of("a"));  // b is now the least recently used
  put(cache, "d");
  CHECK(cache.lookup(req("b")) == control::ResponseCache::State::kMiss);
  CHECK(cache.bit_of("d") == 1);  // b's bit
  cache.erase(cache.bit_of("a"));
  cache.erase(cache.bit_of("c"));
  put(cache, "e");
  CHECK(cache.bit_of("e") == 0);
}

TEST_CASE("response_cache: two caches fed the same calls stay identical") {
  control::ResponseCache one(5), two(5);
  for (control::ResponseCache* c : {&one, &two}) {
    for (int i = 0; i < 40; ++i) {
      put(*c, "t" + std::to_string(i % 9));
      if (i % 4 == 0) c->use(c->bit_of("t" + std::to_string(i % 9)));
      if (i % 7 == 0) c->erase(c->bits().front());
    }
  }
  CHECK(one.bits() == two.bits());
  for (size_t bit : one.bits()) CHECK(one.use(bit).names == two.use(bit).names);
}

TEST_CASE("response_cache: capacity 0 caches nothing") {
  control::ResponseCache cache(0);
  put(cache, "a");
  CHECK(cache.lookup(req("a")) == control::ResponseCache::State::kMiss);
  CHECK(cache.size() == 0);
}

TEST_CASE("response_cache: the span ends past the highest bit in use") {
  control::ResponseCache cache(200);
  CHECK(cache.span() == 0);
  for (int i = 0; i < 130; ++i) put(cache, "t" + std::to_string(i));
  CHECK(cache.span() == 130);
  cache.erase(cache.bit_of("t5"));  // a hole below the top leaves the span
  CHECK(cache.span() == 130);
  cache.erase(cache.bit_of("t129"));
  CHECK(cache.span() == 129);
  for (int i = 6; i < 129; ++i) cache.erase(cache.bit_of("t" + std::to_string(i)));
  CHECK(cache.span() == 5);  // down past the hole at 5
  put(cache, "again");       // takes the lowest free bit, 5
  CHECK(cache.span() == 6);
}
