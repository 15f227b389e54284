// SPDX-License-Identifier: Apache-2.0
#include "config/torchrun_shape.h"

#include <doctest/doctest.h>

#include "hvd/error.h"

namespace config = hvd::launcher::config;

namespace {
config::RunOptions with(std::optional<int> np, std::optional<int> per_node,
                        std::optional<int> nodes) {
  config::RunOptions o;
  o.num_proc = np;
  o.nproc_per_node = per_node;
  o.nnodes = nodes;
  return o;
}
}  // namespace

TEST_CASE("torchrun shape: --nproc-per-node is -np on this machine") {
  const config::RunOptions o = config::apply_torchrun_shape(with({}, 4, {}), false);
  CHECK(o.num_proc == 4);
  CHECK_FALSE(o.nproc_per_node);
  CHECK(config::apply_torchrun_shape(with({}, 2, 1), false).num_proc == 2);
  CHECK(config::apply_torchrun_shape(with(3, {}, {}), false).num_proc == 3);  // untouched
}

TEST_CASE("torchrun shape: kept for the step inside Slurm") {
  const config::RunOptions o = config::apply_torchrun_shape(with({}, 4, 2), true);
  CHECK_FALSE(o.num_proc);
  CHECK(o.nproc_per_node == 4);
  CHECK(o.nnodes == 2);
}

TEST_CASE("torchrun shape: contradictions name the flags") {
  CHECK_THROWS_WITH_AS(config::apply_torchrun_shape(with(8, 4, {}), true),
                       doctest::Contains("-np 8 and --nproc-per-node 4"), hvd::UsageError);
  CHECK_THROWS_WITH_AS(config::apply_torchrun_shape(with({}, {}, 2), true),
                       doctest::Contains("--nnodes 2 needs --nproc-per-node"), hvd::UsageError);
  CHECK_THROWS_WITH_AS(config::apply_torchrun_shape(with({}, 4, 2), false),
                       doctest::Contains("outside a Slurm job"), hvd::UsageError);
}
