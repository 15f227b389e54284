// SPDX-License-Identifier: Apache-2.0
#include "mlp.h"

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "compute.h"
#include "random.h"

using hvd::train::Mlp;

namespace {

struct Fixture {
  std::unique_ptr<hvd::train::Compute> compute = hvd::train::make_host_compute(1);
  Mlp model{*compute, {6, 5, 4, 3}, 4};
  std::vector<float> x;
  std::vector<int32_t> labels{0, 2, 1, 2};

  Fixture() {
    model.init_params(7);
    hvd::train::SplitMix64 rng(11);
    for (int i = 0; i < 4 * 6; ++i) x.push_back(rng.next_normal());
  }
  double mean_loss() { return model.evaluate(x.data(), labels.data(), 4).loss_sum / 4; }
};

}  // namespace

TEST_CASE("mlp: backward matches finite differences of the mean loss") {
  Fixture f;
  std::vector<int> order;
  f.model.train_step(f.x.data(), f.labels.data(), 4, [&](int l) { order.push_back(l); });
  CHECK(order == std::vector<int>{2, 1, 0});  // last layer first: allreduce starts early
  const std::vector<float> grads(f.model.grads(), f.model.grads() + f.model.parameter_count());

  // Central differences in float: eps 1e-2 keeps rounding (~1e-7 / eps) far below the check.
  const float eps = 1e-2f;
  int checked = 0;
  for (size_t i = 0; i < f.model.parameter_count(); ++i) {
    float& w = f.model.params()[i];
    const float saved = w;
    w = saved + eps;
    const double up = f.mean_loss();
    w = saved - eps;
    const double down = f.mean_loss();
    w = saved;
    const double numeric = (up - down) / (2 * eps);
    CHECK_MESSAGE(grads[i] == doctest::Approx(numeric).epsilon(2e-2).scale(1e-2), "parameter ", i);
    ++checked;
  }
  CHECK(checked == 6 * 5 + 5 + 5 * 4 + 4 + 4 * 3 + 3);
}

TEST_CASE("mlp: layers are contiguous [W | b] blocks of the flat buffer") {
  Fixture f;
  CHECK(f.model.num_layers() == 3);
  CHECK(f.model.layer_offset(0) == 0);
  CHECK(f.model.layer_size(0) == 35);
  CHECK(f.model.layer_offset(1) == 35);
  CHECK(f.model.layer_offset(2) == 35 + 24);
  CHECK(f.model.parameter_count() == 35 + 24 + 15);
  SUBCASE("initialization is nn.Linear's: within +-1/sqrt(fan_in), the same for one seed") {
    const float bound = 1.0f / std::sqrt(6.0f);
    for (size_t i = 0; i < 35; ++i) CHECK(std::fabs(f.model.params()[i]) <= bound);
    Fixture g;
    CHECK(std::equal(f.model.params(), f.model.params() + 74, g.model.params()));
  }
}

TEST_CASE("mlp: a few SGD steps on one batch drive its loss down") {
  Fixture f;
  const double before = f.mean_loss();
  for (int step = 0; step < 50; ++step) {
    f.model.train_step(f.x.data(), f.labels.data(), 4, [](int) {});
    for (size_t i = 0; i < f.model.parameter_count(); ++i) {
      f.model.params()[i] -= 0.5f * f.model.grads()[i];
    }
  }
  CHECK(f.mean_loss() < 0.1 * before);
}
