// SPDX-License-Identifier: Apache-2.0
#include "dataset.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <set>

#include "hvd/error.h"

using hvd::train::ShardSampler;

TEST_CASE("dataset: N ranks with batch B see exactly one rank's batch of N*B, in order") {
  ShardSampler one(1000, 1, 0, 96, 5);
  ShardSampler r0(1000, 3, 0, 32, 5);
  ShardSampler r1(1000, 3, 1, 32, 5);
  ShardSampler r2(1000, 3, 2, 32, 5);
  CHECK(one.steps_per_epoch() == 10);
  CHECK(r1.steps_per_epoch() == 10);
  for (int64_t step : {0, 1, 9, 10, 23}) {  // across epochs too
    std::vector<uint32_t> joined = r0.indices(step);
    for (ShardSampler* s : {&r1, &r2}) {
      const auto& part = s->indices(step);
      joined.insert(joined.end(), part.begin(), part.end());
    }
    CHECK(joined == one.indices(step));
  }
}

TEST_CASE("dataset: each epoch is a new permutation of every sample") {
  ShardSampler s(100, 1, 0, 10, 9);
  std::vector<uint32_t> epoch0, epoch1;
  for (int64_t step = 0; step < 10; ++step) {
    const auto& a = s.indices(step);
    epoch0.insert(epoch0.end(), a.begin(), a.end());
  }
  for (int64_t step = 10; step < 20; ++step) {
    const auto& a = s.indices(step);
    epoch1.insert(epoch1.end(), a.begin(), a.end());
  }
  CHECK(epoch0 != epoch1);
  CHECK(std::set<uint32_t>(epoch0.begin(), epoch0.end()).size() == 100);
  CHECK(std::set<uint32_t>(epoch1.begin(), epoch1.end()).size() == 100);
  SUBCASE("a global batch larger than the data set is a usage error") {
    CHECK_THROWS_AS(ShardSampler(100, 4, 0, 32, 1), hvd::UsageError);
  }
}

TEST_CASE("dataset: evaluation shards cover the set once") {
  const auto a = hvd::train::eval_shard(11, 3, 0);
  const auto b = hvd::train::eval_shard(11, 3, 1);
  const auto c = hvd::train::eval_shard(11, 3, 2);
  CHECK(a.size() + b.size() + c.size() == 11);
  CHECK(b == std::vector<uint32_t>{1, 4, 7, 10});
}

TEST_CASE("dataset: synthetic data depends only on the seed") {
  const auto a = hvd::train::make_synthetic(64, 3);
  const auto b = hvd::train::make_synthetic(64, 3);
  CHECK(a.images == b.images);
  CHECK(a.labels == b.labels);
  CHECK(std::all_of(a.labels.begin(), a.labels.end(), [](int32_t y) { return y >= 0 && y < 10; }));
}
