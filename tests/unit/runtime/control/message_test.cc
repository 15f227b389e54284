// SPDX-License-Identifier: Apache-2.0
#include "control/message.h"

#include <doctest/doctest.h>

#include "hvd/error.h"

namespace control = hvd::control;

TEST_CASE("message: requests and responses survive the codec") {
  control::Request q;
  q.rank = 3;
  q.name = "grad/layer1.weight";
  q.type = control::OpType::kBroadcast;
  q.dtype = hvd::DataType::kBFloat16;
  q.op = hvd::ReduceOp::kMax;
  q.root = 2;
  q.device.index = 1;
  q.shape = {4, 0, 17};
  q.prescale = 0.5;
  q.postscale = 2.0;
  q.group = 7;
  const auto back = control::decode_requests(control::encode_requests({q, control::Request{}}));
  REQUIRE(back.size() == 2);
  CHECK(back[0].rank == 3);
  CHECK(back[0].name == q.name);
  CHECK(back[0].type == q.type);
  CHECK(back[0].dtype == q.dtype);
  CHECK(back[0].op == q.op);
  CHECK(back[0].root == 2);
  CHECK(back[0].device.index == 1);
  CHECK(back[0].shape == q.shape);
  CHECK(back[0].prescale == 0.5);
  CHECK(back[0].postscale == 2.0);
  CHECK(back[0].group == 7);

  control::Response r;
  r.kind = control::Response::Kind::kError;
  r.type = control::OpType::kAllgather;
  r.names = {"a", "b"};
  r.first_dims = {1, 2, 3, 4};
  r.error = "mismatched data types";
  const auto rb = control::decode_responses(control::encode_responses({r}));
  REQUIRE(rb.size() == 1);
  CHECK(rb[0].kind == r.kind);
  CHECK(rb[0].names == r.names);
  CHECK(rb[0].first_dims == r.first_dims);
  CHECK(rb[0].error == r.error);
  CHECK(control::decode_requests(control::encode_requests({})).empty());
}

TEST_CASE("message: malformed frames are BackendErrors, not crashes or huge allocations") {
  const std::string good = control::encode_requests({control::Request{}});
  for (size_t cut = 0; cut < good.size(); ++cut) {
    CHECK_THROWS_AS(control::decode_requests(good.substr(0, cut)), hvd::BackendError);
  }
  CHECK_THROWS_AS(control::decode_requests(good + "x"), hvd::BackendError);
  std::string huge_count = good;
  huge_count[0] = huge_count[1] = huge_count[2] = huge_count[3] = '\xff';
  CHECK_THROWS_AS(control::decode_requests(huge_count), hvd::BackendError);
  std::string bad_enum = good;
  bad_enum[4 + 4 + 4] = '\x09';  // count, rank, name length, then the op type
  CHECK_THROWS_AS(control::decode_requests(bad_enum), hvd::BackendError);
}
