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

TEST_CASE("message: responses with truncated bytes or huge announced counts are refused") {
  control::Response r;
  r.names = {"a", "b"};
  r.first_dims = {1, 2};
  r.counts = {3, 4};
  const std::string good = control::encode_responses({r});
  for (size_t cut = 0; cut < good.size(); ++cut) {
    CHECK_THROWS_AS(control::decode_responses(good.substr(0, cut)), hvd::BackendError);
  }
  // The names count sits after the response count and two enum bytes; the first_dims count
  // after the names and the fixed fields. Each is set to 2^32-1: no allocation may follow.
  std::string huge_names = good;
  for (size_t i = 6; i < 10; ++i) huge_names[i] = '\xff';
  CHECK_THROWS_AS(control::decode_responses(huge_names), hvd::BackendError);
  const size_t dims_at = 4 + 2 + 4 + (4 + 1) * 2 + 2 + 4 + 4 + 8 + 8;
  std::string huge_dims = good;
  for (size_t i = dims_at; i < dims_at + 4; ++i) huge_dims[i] = '\xff';
  CHECK_THROWS_AS(control::decode_responses(huge_dims), hvd::BackendError);
}

TEST_CASE("message: shape_problem refuses negative dimensions and sizes beyond int64") {
  CHECK(control::shape_problem({2, 3}, hvd::DataType::kFloat32).empty());
  CHECK(control::shape_problem({}, hvd::DataType::kFloat32).empty());
  CHECK(control::shape_problem({0, int64_t{1} << 40}, hvd::DataType::kFloat64).empty());
  CHECK(control::shape_problem({-1, 4}, hvd::DataType::kFloat32) ==
        "dimension 0 is -1; dimensions must be >= 0");
  CHECK(control::shape_problem({int64_t{1} << 31, int64_t{1} << 31}, hvd::DataType::kFloat32)
            .find("more bytes than fit in int64") != std::string::npos);
  CHECK(control::shape_problem({int64_t{1} << 61}, hvd::DataType::kFloat64)
            .find("more bytes than fit in int64") != std::string::npos);
  CHECK_FALSE(control::shape_problem({1}, static_cast<hvd::DataType>(42)).empty());
}

TEST_CASE("message: checked_element_count agrees with shape_problem") {
  const hvd::DataType f32 = hvd::DataType::kFloat32, f64 = hvd::DataType::kFloat64;
  CHECK(control::checked_element_count({2, 3}, f32) == 6);
  CHECK(control::checked_element_count({}, f32) == 1);
  CHECK(control::checked_element_count({0, int64_t{1} << 40}, f64) == 0);
  CHECK(control::checked_element_count({4, 0}, f32) == 0);
  CHECK(control::checked_element_count({-1, 4}, f32) == -1);
  CHECK(control::checked_element_count({int64_t{1} << 31, int64_t{1} << 31}, f32) == -1);
  CHECK(control::checked_element_count({int64_t{1} << 61}, f64) == -1);
  CHECK(control::checked_element_count({int64_t{1} << 60}, f64) == -1);  // bytes overflow
  CHECK(control::checked_element_count({int64_t{1} << 59}, f64) == int64_t{1} << 59);
  CHECK(control::checked_element_count({1}, static_cast<hvd::DataType>(42)) == -1);
}
