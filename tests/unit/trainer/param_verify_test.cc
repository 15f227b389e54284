// SPDX-License-Identifier: Apache-2.0
#include "param_verify.h"

#include <cstring>

#include <doctest/doctest.h>

namespace train = hvd::train;

TEST_CASE("param verify: each layer's weight and bias, named and placed as in the buffer") {
  const std::vector<train::ParamSlice> s = train::parameter_slices({784, 256, 10});
  REQUIRE(s.size() == 4);
  CHECK(s[0].name == "layer0.weight");
  CHECK(s[0].offset == 0);
  CHECK(s[0].count == 256 * 784);
  CHECK(s[1].name == "layer0.bias");
  CHECK(s[1].offset == 256 * 784);
  CHECK(s[1].count == 256);
  CHECK(s[3].name == "layer1.bias");
  CHECK(s[3].offset + s[3].count == 256 * 784 + 256 + 10 * 256 + 10);
}

TEST_CASE("param verify: one flipped bit changes only its own tensor's digest") {
  const std::vector<train::ParamSlice> slices = train::parameter_slices({3, 4, 2});
  std::vector<float> params(3 * 4 + 4 + 4 * 2 + 2, 0.25f);
  const std::vector<int64_t> before = train::slice_digests(params.data(), slices);
  uint32_t bits;
  std::memcpy(&bits, &params[17], sizeof(bits));  // layer1.weight's second element
  bits ^= 1u;
  std::memcpy(&params[17], &bits, sizeof(bits));
  const std::vector<int64_t> after = train::slice_digests(params.data(), slices);
  CHECK(after[0] == before[0]);
  CHECK(after[1] == before[1]);
  CHECK(after[2] != before[2]);
  CHECK(after[3] == before[3]);
}

TEST_CASE("param verify: the first tensor that differs on any rank") {
  // 3 ranks x 4 tensors; rank 2 differs in tensors 2 and 3.
  const std::vector<int64_t> table = {1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 9, 9};
  CHECK(train::first_difference(table, 4) == 2);
  CHECK(train::first_difference({1, 2, 1, 2}, 2) == -1);
}

TEST_CASE("param verify: which ranks differ") {
  CHECK(train::who_differs({7, 7, 5}) == "rank 2 differs from the other 2 rank(s)");
  CHECK(train::who_differs({5, 7, 7, 5, 7}) == "ranks 0, 3 differ from the other 3 rank(s)");
  SUBCASE("without a majority every group is named") {
    CHECK(train::who_differs({7, 5}) ==
          "ranks hold 2 different sets of parameters (rank 0; rank 1; no majority to tell which "
          "are wrong)");
  }
}
